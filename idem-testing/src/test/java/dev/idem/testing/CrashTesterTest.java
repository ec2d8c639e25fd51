package dev.idem.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.Reconciliation;
import dev.idem.engine.StepAction;
import dev.idem.engine.Work;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The crash tester finds what it exists to find: three broken checkouts (a write outside any step,
 * a reconciler that answers "did not happen" after the transfer ran, a transfer started before the
 * step's start marker) each fail the assertion on their effect, in the schedule that shows the
 * mistake, and the correct checkout passes every schedule.
 */
@Timeout(60)
class CrashTesterTest {
    /** What the checkout answers. */
    record Receipt(String reservation, String transfer) {
    }

    /** A warehouse that deduplicates by the reservation's key, as a good downstream API does. */
    static final class Warehouse {
        private final Effects effects;
        private final Map<String, String> reservations = new HashMap<>();

        Warehouse(Effects effects) {
            this.effects = effects;
        }

        String reserve(String key) {
            return reservations.computeIfAbsent(key, k -> {
                effects.record("reserve");
                return "res-" + (reservations.size() + 1);
            });
        }

        void reset() {
            reservations.clear();
        }
    }

    /** A bank without idempotency keys: every call moves money; a transfer can be looked up by its reference. */
    static final class Bank {
        private final Effects effects;
        private final Map<String, String> transfers = new LinkedHashMap<>();

        Bank(Effects effects) {
            this.effects = effects;
        }

        String transfer(String reference) {
            effects.record("charge");
            String id = "tr-" + (transfers.size() + 1);
            transfers.put(reference, id);
            return id;
        }

        /** Moves the money now, and returns what confirms the transfer later: the mistake of broken checkout 3. */
        StepAction<String> startTransfer(String reference) {
            String id = transfer(reference);
            return () -> id;
        }

        Optional<String> find(String reference) {
            return Optional.ofNullable(transfers.get(reference));
        }

        void notifyAccounting(String transfer) {
            effects.record("accounting");
        }

        void reset() {
            transfers.clear();
        }
    }

    private final CrashTester tester = CrashTester.builder().beforeEachSchedule(this::reset).build();
    private final Warehouse warehouse = new Warehouse(tester.effects());
    private final Bank bank = new Bank(tester.effects());

    private void reset() {
        warehouse.reset();
        bank.reset();
    }

    private Reconciliation<String> lookUp(dev.idem.engine.InterruptedStep started) {
        return bank.find(started.downstreamKey()).map(Reconciliation::happened)
                .orElseGet(Reconciliation::didNotHappen);
    }

    private final Work<Receipt> correct = ctx -> {
        String reservation = ctx.step("reserve", String.class, () -> warehouse.reserve(ctx.downstreamKey("reserve")));
        String transfer = ctx.atMostOnceStep("charge", String.class, () -> bank.transfer(ctx.downstreamKey("charge")),
                this::lookUp);
        ctx.step("notify", () -> bank.notifyAccounting(transfer));
        return new Receipt(reservation, transfer);
    };

    @Test
    void theCorrectCheckoutRunsEachEffectOnceInEveryScheduleAndItsCallersAgree() {
        CrashReport report = tester.run("{\"order\":42}", Receipt.class, correct);

        report.assertExactlyOnce("reserve", "charge").assertAnswersAgree();
        assertThat(report.unreached()).isEmpty();
        // The fault-free run; 3 steps of 4 boundaries; 6 store calls (the claim, the journal writes of reserve,
        // of charge's start marker and result and of notify, the completion) with 5 faults each.
        assertThat(report.schedules()).hasSize(1 + 3 * 4 + 6 * 5);
        assertThat(report.schedules().get(0).fault()).isEqualTo("no fault");
        assertThat(report.schedules().get(0).answers()).extracting(Answer::toString)
                .containsExactly("value Receipt[reservation=res-1, transfer=tr-1]",
                        "value Receipt[reservation=res-1, transfer=tr-1] (replayed)");
        // The reconciler runs exactly where the worker died with the charge's marker on record and no result.
        assertThat(report.schedulesWhere(s -> !s.reconciled().isEmpty())).extracting(CrashSchedule::fault)
                .contains("the worker dies in at-most-once step 'charge', after its start marker, before its action",
                        "the worker dies in at-most-once step 'charge', after its action returned, before its result"
                                + " is journaled")
                .doesNotContain("the worker dies before at-most-once step 'charge'",
                        "the worker dies after at-most-once step 'charge'");
        // The plain notification is at least once: it repeats where the worker died inside it.
        assertThat(report.mostEffects("accounting")).isEqualTo(2);
        assertThat(report.schedulesWhere(s -> s.effects("accounting") == 2)).extracting(CrashSchedule::fault)
                .contains("the worker dies in step 'notify', after its action returned, before its result is journaled");
    }

    @Test
    void aWriteOutsideAnyStepIsFoundRepeatingAfterADeathAfterTheStep() {
        Work<Receipt> writesOutside = ctx -> {
            String reservation = ctx.step("reserve", String.class,
                    () -> warehouse.reserve(ctx.downstreamKey("reserve")));
            String transfer = ctx.atMostOnceStep("charge", String.class,
                    () -> bank.transfer(ctx.downstreamKey("charge")), this::lookUp);
            bank.notifyAccounting(transfer);   // the mistake: not a step, so every retry repeats it
            return new Receipt(reservation, transfer);
        };

        CrashReport report = tester.run("{\"order\":42}", Receipt.class, writesOutside);

        report.assertExactlyOnce("charge").assertAnswersAgree();
        // Found where the worker dies after the write, before the outcome is stored: the retry repeats it.
        assertThatThrownBy(() -> report.assertAtMostOnce("accounting")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("accounting happened more than once")
                .hasMessageContaining("the worker dies before store call 5 (complete)")
                .hasMessageContaining("the lease lapses and another caller takes the key over before store call 5"
                        + " (complete)");
    }

    @Test
    void aReconcilerThatSaysNotHappenedAfterTheTransferIsFoundChargingTwice() {
        Work<Receipt> forgetful = ctx -> {
            String reservation = ctx.step("reserve", String.class,
                    () -> warehouse.reserve(ctx.downstreamKey("reserve")));
            String transfer = ctx.atMostOnceStep("charge", String.class,
                    () -> bank.transfer(ctx.downstreamKey("charge")),
                    started -> Reconciliation.didNotHappen());   // the mistake: never looks at the bank
            return new Receipt(reservation, transfer);
        };

        CrashReport report = tester.run("{\"order\":42}", Receipt.class, forgetful);

        assertThat(report.mostEffects("charge")).isEqualTo(2);
        assertThatThrownBy(() -> report.assertExactlyOnce("charge")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("the worker dies in at-most-once step 'charge', after its action returned,"
                        + " before its result is journaled")
                .hasMessageContaining("reconciled [charge (started by attempt 1)]");
    }

    @Test
    void aTransferStartedBeforeTheStepsMarkerIsFoundChargingTwice() {
        Work<Receipt> eager = ctx -> {
            String reservation = ctx.step("reserve", String.class,
                    () -> warehouse.reserve(ctx.downstreamKey("reserve")));
            // The mistake: the argument moves the money before the engine journals the step's start.
            String transfer = ctx.atMostOnceStep("charge", String.class,
                    bank.startTransfer(ctx.downstreamKey("charge")), this::lookUp);
            return new Receipt(reservation, transfer);
        };

        CrashReport report = tester.run("{\"order\":42}", Receipt.class, eager);

        assertThatThrownBy(() -> report.assertExactlyOnce("charge")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("the worker dies before at-most-once step 'charge'");
        assertThat(report.schedulesWhere(s -> s.effects("charge") > 1)).extracting(CrashSchedule::fault)
                .contains("the worker dies before at-most-once step 'charge'");
    }

    @Test
    void aStoreTheTestPassesRunsOnTheTestersClockAndTheReportIsTheSameEveryRun() {
        List<Runnable> resets = new ArrayList<>();
        CrashTester onItsStore = CrashTester.builder()
                .store(clock -> MemoryIdempotencyStore.builder().clock(clock).build())
                .lease(Duration.ofSeconds(5)).operation("checkout")
                .beforeEachSchedule(() -> resets.forEach(Runnable::run)).build();
        Warehouse w = new Warehouse(onItsStore.effects());
        Bank b = new Bank(onItsStore.effects());
        resets.add(w::reset);
        resets.add(b::reset);
        Work<Receipt> work = ctx -> new Receipt(ctx.step("reserve", String.class, () -> w.reserve(ctx.downstreamKey(
                "reserve"))), ctx.atMostOnceStep("charge", String.class, () -> b.transfer(ctx.downstreamKey("charge")),
                        s -> b.find(s.downstreamKey()).map(Reconciliation::happened)
                                .orElseGet(Reconciliation::didNotHappen)));

        CrashReport first = onItsStore.run("{\"order\":1}", Receipt.class, work);
        CrashReport second = onItsStore.run("{\"order\":1}", Receipt.class, work);

        first.assertExactlyOnce("reserve", "charge").assertAnswersAgree();
        assertThat(first.schedules()).extracting(CrashSchedule::fault)
                .containsExactlyElementsOf(second.schedules().stream().map(CrashSchedule::fault).toList());
        assertThat(first.schedules()).extracting(s -> s.answers().toString())
                .containsExactlyElementsOf(second.schedules().stream().map(s -> s.answers().toString()).toList());
        assertThat(first.schedules().get(1).key().operation()).isEqualTo("checkout");
        assertThat(first.toString()).contains("charge: 1 to 1 times per key");
    }

    @Test
    void badSettingsAreRefusedByName() {
        assertThatThrownBy(() -> CrashTester.builder().engine(b -> b.clock(java.time.Clock.systemUTC())).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clock");
        assertThatThrownBy(() -> CrashTester.builder().lease(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> CrashTester.builder().lease(Duration.ofSeconds(1)).lease(Duration.ofSeconds(2)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> tester.effects().record("charge")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no crash schedule runs");
        assertThatThrownBy(() -> tester.run("{}", Receipt.class, null)).isInstanceOf(NullPointerException.class);
    }
}
