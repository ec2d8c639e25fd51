package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.internal.StepJournal;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Step journals at the engine's outcome limit, with and without encryption: a journal that fits
 * the limit exactly is written, one byte more fails the key finally with
 * {@link StepJournalTooLargeException} (for an at-most-once step before its action runs), and
 * with encryption on the envelope's largest overhead is counted in, so a sealed journal never
 * reaches the store over the limit. Also what a work sees when an interrupted step cannot be
 * settled: a reconciler's checked exception reaches the work as itself and stops the execution,
 * and a step renamed, or run as another kind of step, while keys are in flight is refused naming
 * its position.
 */
@Timeout(60)
class StepLimitsAndFailuresTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final KeyRing KEYS = KeyRing.of(KeyVersion.of("k1", new byte[32]));
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();

    /** A result large enough that the final failure naming the step fits where the journal does not. */
    private static final String X = "x".repeat(400);

    /** The journal holding step "a" with the result {@link #X}: what the limit is measured against. */
    private static int journalOfOneStep() {
        byte[] result = new OutcomeCodec(new ObjectMapper()).encodeSuccess(X);
        int finished = StepJournal.empty().append("a", result).bytes().length;
        assertThat(StepJournal.empty().start("a", 1).bytes().length).isLessThanOrEqualTo(finished);
        return finished;
    }

    private IdempotencyEngine engine(boolean encrypted, int maxOutcomeBytes) {
        IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .lease(LEASE).maxOutcomeBytes(maxOutcomeBytes);
        return (encrypted ? b.encryptOutcomes(KEYS) : b).build();
    }

    @Test
    void aJournalThatFitsTheLimitExactlyIsWrittenAndOneByteMoreFailsTheKey() {
        for (boolean encrypted : new boolean[] {false, true}) {
            int limit = journalOfOneStep() + (encrypted ? Sealer.maxOverhead() : 0);
            IdempotencyKey fits = IdempotencyKey.of("s", "op", "fits-" + encrypted);
            assertThat(engine(encrypted, limit).execute(fits, "{}", String.class,
                    ctx -> ctx.step("a", String.class, () -> X)).value()).isEqualTo(X);

            IdempotencyKey over = IdempotencyKey.of("s", "op", "over-" + encrypted);
            assertThatThrownBy(() -> engine(encrypted, limit - 1).execute(over, "{}", String.class,
                    ctx -> ctx.step("a", String.class, () -> X)))
                    .as("encrypted: %s", encrypted).isInstanceOf(FinalFailureException.class)
                    .satisfies(t -> assertThat(StepsTest.settledBy(t)).isInstanceOf(StepJournalTooLargeException.class));
        }
    }

    @Test
    void anAtMostOnceStepWhoseMarkerDoesNotFitNeverRunsItsAction() {
        // An empty result journals in fewer bytes than the step's start marker: the marker sets the limit.
        int marker = StepJournal.empty().start("a", 1).bytes().length;
        assertThat(StepJournal.empty().append("a", new OutcomeCodec(new ObjectMapper()).encodeSuccess(""))
                .bytes().length).isLessThan(marker);
        for (boolean encrypted : new boolean[] {false, true}) {
            int limit = marker + (encrypted ? Sealer.maxOverhead() : 0);
            AtomicInteger runs = new AtomicInteger();
            Work<String> work = ctx -> ctx.atMostOnceStep("a", String.class, () -> {
                runs.incrementAndGet();
                return "";
            }, s -> Reconciliation.didNotHappen());
            assertThat(engine(encrypted, limit).execute(IdempotencyKey.of("s", "op", "m-fits-" + encrypted), "{}",
                    String.class, work).value()).isEmpty();
            assertThat(runs).hasValue(1);
            // One byte less: refused before the action, and the key never runs it (the answer is a marker,
            // since not even the failure fits so small a limit).
            Throwable over = org.assertj.core.api.Assertions.catchThrowable(() -> engine(encrypted, limit - 1)
                    .execute(IdempotencyKey.of("s", "op", "m-over-" + encrypted), "{}", String.class, work));
            assertThat(causes(over)).as("encrypted: %s", encrypted)
                    .anyMatch(c -> c instanceof StepJournalTooLargeException);
            assertThat(runs).as("the action never ran over the limit").hasValue(1);
        }
    }

    private static List<Throwable> causes(Throwable t) {
        List<Throwable> all = new ArrayList<>();
        for (Throwable c = t; c != null && !all.contains(c); c = c.getCause()) {
            all.add(c);
        }
        return all;
    }

    /** Runs an at-most-once step "wire" whose worker dies after its start marker; the lease then lapses. */
    private IdempotencyKey interruptedWire(String name) {
        IdempotencyKey k = IdempotencyKey.of("tenant", "transfer", name);
        boolean[] cut = {false};
        IdempotencyStore dying = new ForwardingIdempotencyStore(store) {
            @Override
            protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
                if (cut[0]) {
                    throw new StoreUnavailableException("connection cut: the worker died", null);
                }
                return call.get();
            }
        };
        IdempotencyEngine first = IdempotencyEngine.builder().store(dying).ticker(ClockTicker.of(clock))
                .lease(LEASE).build();
        assertThatThrownBy(() -> first.execute(k, "{}", String.class, ctx -> ctx.step("reserve", String.class,
                () -> "r") + ctx.atMostOnceStep("wire", String.class, () -> {
                    cut[0] = true;
                    throw new AtMostOnceStepsTest.Died();
                }, s -> Reconciliation.didNotHappen()))).isInstanceOf(AtMostOnceStepsTest.Died.class);
        clock.advance(LEASE.plusMillis(1));
        return k;
    }

    @Test
    void aReconcilersCheckedExceptionReachesTheWorkAsItselfAndStopsTheExecution() {
        IdempotencyKey k = interruptedWire("checked");
        List<Exception> seen = new ArrayList<>();
        IOException down = new IOException("bank unreachable");
        Work<String> work = ctx -> {
            ctx.step("reserve", String.class, () -> "r");
            try {
                ctx.atMostOnceStep("wire", String.class, () -> "w", s -> {
                    throw down;
                });
            } catch (Exception e) {
                seen.add(e);
            }
            return ctx.step("after", String.class, () -> "a");
        };
        IdempotencyEngine second = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .lease(LEASE).build();
        assertThatThrownBy(() -> second.execute(k, "{}", String.class, work))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the reconciler of at-most-once step 'wire' failed").hasCause(down);
        assertThat(seen).containsExactly(down);
    }

    @Test
    void aStepRenamedWhileItsKeyIsInFlightIsRefusedNamingItsPosition() {
        IdempotencyKey k = interruptedWire("renamed");
        IdempotencyEngine second = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .lease(LEASE).build();
        assertThatThrownBy(() -> second.execute(k, "{}", String.class, ctx -> ctx.step("reserve", String.class,
                () -> "r") + ctx.atMostOnceStep("send", String.class, () -> "w", s -> Reconciliation.didNotHappen())))
                .isInstanceOf(StepMismatchException.class)
                .hasMessageContaining("step 2 of transfer is 'send' but the key's journal recorded 'wire' there");
    }

    @Test
    void aStepThatChangedKindWhileItsKeyIsInFlightIsRefusedNamingItsPosition() {
        IdempotencyKey k = interruptedWire("changed");
        IdempotencyEngine second = IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock))
                .lease(LEASE).build();
        assertThatThrownBy(() -> second.execute(k, "{}", String.class, ctx -> ctx.step("reserve", String.class,
                () -> "r") + ctx.step("wire", String.class, () -> "w")))
                .isInstanceOf(StepMismatchException.class)
                .hasMessageContaining("step 2 of transfer, 'wire', was started as an at-most-once step by attempt 1");
    }
}
