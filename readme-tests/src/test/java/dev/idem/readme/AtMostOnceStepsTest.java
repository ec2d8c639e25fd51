package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.engine.ExecutionContext;
import dev.idem.engine.Reconciliation;
import dev.idem.testing.CrashReport;
import dev.idem.testing.CrashTester;
import dev.idem.testing.Effects;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The README's at-most-once step and crash tester: a wire transfer through a bank without
 * idempotency keys, settled after a crash by looking it up by its reference, and the test that
 * proves it with the crash tester.
 */
class AtMostOnceStepsTest {
    record WireRequest(String account, long amountCents) {
    }

    record Transfer(String id, long amountCents) {
    }

    record Payout(String reservation, String transfer) {
    }

    /** A bank without idempotency keys: every call moves money; a transfer can be found by its reference. */
    static final class Bank {
        private final Effects effects;
        private final Map<String, Transfer> byReference = new HashMap<>();

        Bank(Effects effects) {
            this.effects = effects;
        }

        Transfer wire(String account, long amountCents, String reference) {
            effects.record("wire");
            Transfer t = new Transfer("tr-" + (byReference.size() + 1), amountCents);
            byReference.put(reference, t);
            return t;
        }

        Optional<Transfer> findByReference(String reference) {
            return Optional.ofNullable(byReference.get(reference));
        }

        void reset() {
            byReference.clear();
        }
    }

    /** The application's service, whose work the test hands to the crash tester. */
    static final class Payouts {
        private final Bank bank;

        Payouts(Bank bank) {
            this.bank = bank;
        }

        Payout pay(ExecutionContext ctx, WireRequest request) throws Exception {
            String reservation = ctx.step("reserve", String.class, () -> "res-" + request.account());
            // tag::at-most-once-step[]
            // The bank has no idempotency keys: the transfer must run at most once. Its start is journaled
            // before it runs; a worker that takes over after a crash finds it started and asks the bank.
            Transfer t = ctx.atMostOnceStep("wire", Transfer.class,
                    () -> bank.wire(request.account(), request.amountCents(), ctx.downstreamKey("wire")),
                    started -> bank.findByReference(started.downstreamKey())
                            .map(Reconciliation::happened)                     // it happened: use its result
                            .orElseGet(Reconciliation::didNotHappen));         // it did not: run it now
            // end::at-most-once-step[]
            return new Payout(reservation, t.id());
        }
    }

    @Test
    void theTransferRunsOnceInEveryCrashSchedule() {
        WireRequest request = new WireRequest("acct-1", 5_000);
        // tag::crash-tester[]
        Effects effects = new Effects();
        Bank bank = new Bank(effects);                   // your fake: records "wire" for each transfer it makes
        CrashTester tester = CrashTester.builder()       // the memory store, on the tester's own clock
                .effects(effects)
                .beforeEachSchedule(bank::reset)         // every schedule (each on its own key) starts afresh
                .build();

        CrashReport report = tester.run(request, Payout.class, ctx -> new Payouts(bank).pay(ctx, request));

        report.assertExactlyOnce("wire")                 // in every crash schedule
                .assertAnswersAgree();                   // and every caller of a key got the same answer
        // end::crash-tester[]
        assertThat(report.schedules()).hasSizeGreaterThan(30);
        assertThat(report.schedulesWhere(s -> !s.reconciled().isEmpty())).isNotEmpty();
        assertThat(report.unreached()).isEmpty();
    }
}
