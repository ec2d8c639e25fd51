package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Deadline;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A blocking call allocates no {@link CompletableFuture} on its caller's thread, on any of its
 * ways: first execution, replay from the store and from the near cache, a reused key, a transient
 * failure given back, a final failure stored and replayed, steps handed back and resumed, an
 * outcome over the limit, a completion tried again after a store failure, a deadline refused
 * before the claim and a lease kept by the heartbeat under a deadline, and duplicates that wait,
 * sharing one poll.
 *
 * <p>Counted exactly, not sampled: the calls run in a child JVM without thread-local allocation
 * buffers ({@code -XX:-UseTLAB}, G1), where every allocation is a JFR
 * {@code jdk.ObjectAllocationOutsideTLAB} event with the allocating thread and stack. A control
 * thread of the child allocates one future on purpose: the count must see it, so the check cannot
 * pass because the recording saw nothing. (The heartbeat's renewals run on the engine's renewal
 * threads, through the laned port, and are not the caller's; none falls due in these short calls.)
 */
@Timeout(120)
class BlockingCallsAllocateNoFutureTest {
    private static final String CALLER = "blocking-caller";
    private static final String CONTROL = "control-allocates-one-future";
    private static final String FUTURE = CompletableFuture.class.getName();

    @Test
    void noBlockingPathAllocatesAFutureOnItsCallersThread(@TempDir Path dir) throws Exception {
        Path recording = dir.resolve("allocations.jfr");
        Path output = dir.resolve("child.txt");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:-UseTLAB", "-XX:+UseG1GC", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                BlockingPaths.class.getName(), recording.toString())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean ended = child.waitFor(100, TimeUnit.SECONDS);
        if (!ended) {
            child.destroyForcibly();
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(ended).as("the child ended: %s", printed).isTrue();
        assertThat(child.exitValue()).as("the child's exit: %s", printed).isZero();

        Map<String, Integer> futures = new TreeMap<>();
        List<String> where = new ArrayList<>();
        int callerAllocations = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(recording)) {
            if (!event.getEventType().getName().equals("jdk.ObjectAllocationOutsideTLAB") || event.getThread() == null) {
                continue;
            }
            String thread = event.getThread().getJavaName();
            boolean caller = thread != null && thread.startsWith(CALLER);
            if (caller) {
                callerAllocations++;
            }
            if (event.getClass("objectClass").getName().equals(FUTURE) && (caller || CONTROL.equals(thread))) {
                futures.merge(thread.startsWith(CALLER) ? CALLER : thread, 1, Integer::sum);
                if (caller && where.size() < 5) {
                    where.add(frames(event));
                }
            }
        }

        assertThat(callerAllocations).as("the recording saw the callers allocate").isGreaterThan(1000);
        assertThat(futures.get(CONTROL)).as("the recording sees a future where one is made").isEqualTo(1);
        assertThat(futures.get(CALLER)).as("futures allocated by blocking calls, at:%n%s", String.join("\n", where))
                .isNull();
    }

    private static String frames(RecordedEvent event) {
        StringBuilder at = new StringBuilder();
        List<RecordedFrame> frames = event.getStackTrace().getFrames();
        for (int i = 0; i < Math.min(12, frames.size()); i++) {
            at.append("    ").append(frames.get(i).getMethod().getType().getName()).append('.')
                    .append(frames.get(i).getMethod().getName()).append('\n');
        }
        return at.toString();
    }

    /** The child: every blocking path, recorded; its exit status says whether each call answered as expected. */
    static final class BlockingPaths {
        private final AtomicInteger keys = new AtomicInteger();
        private final AtomicInteger failCompletes = new AtomicInteger();
        private final IdempotencyStore store = new ForwardingIdempotencyStore(MemoryIdempotencyStore.builder().build()) {
            @Override
            public boolean complete(IdempotencyKey key, long token, byte[] outcome, Duration ttl) {
                if (failCompletes.getAndDecrement() > 0) {
                    throw new StoreUnavailableException("briefly down", null, true);
                }
                return super.complete(key, token, outcome, ttl);
            }
        };
        private final IdempotencyEngine engine = IdempotencyEngine.builder().store(store).sleeper(d -> { })
                .nearCache(100).maxOutcomeBytes(2048)
                .failureClassifier(e -> e instanceof IllegalArgumentException
                        ? FailureDecision.finalFailure("bad", e.getMessage()) : FailureDecision.transientFailure())
                .build();
        private final IdempotencyEngine uncached = IdempotencyEngine.builder().store(store).sleeper(d -> { }).build();
        private volatile CountDownLatch conflicts = new CountDownLatch(0);
        private final IdempotencyEngine waiting = IdempotencyEngine.builder().store(store)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(30)))
                .listener(event -> {
                    if (event.type() == IdempotencyEvent.Type.IN_PROGRESS_CONFLICT) {
                        conflicts.countDown();
                    }
                }).build();

        public static void main(String[] args) throws Exception {
            new BlockingPaths().run(Path.of(args[0]));
        }

        private IdempotencyKey key() {
            return IdempotencyKey.of("tenant", "op", "k" + keys.incrementAndGet());
        }

        private void run(Path file) throws Exception {
            allPaths();
            Recording recording = new Recording();
            recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
            recording.start();
            Thread caller = new Thread(() -> {
                for (int round = 0; round < 3; round++) {
                    allPaths();
                }
            }, CALLER);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            caller.setUncaughtExceptionHandler((t, e) -> failed.set(e));
            caller.start();
            caller.join();
            Thread control = new Thread(() -> new CompletableFuture<String>().complete("seen"), CONTROL);
            control.start();
            control.join();
            recording.stop();
            recording.dump(file);
            engine.close();
            uncached.close();
            waiting.close();
            if (failed.get() != null) {
                failed.get().printStackTrace(System.out);
                System.exit(1);
            }
        }

        private void allPaths() {
            check(firstExecutionAndReplays());
            check(aReusedKey());
            check(aTransientFailureThenARetry());
            check(aFinalFailureStoredAndReplayed());
            check(stepsHandedBackAndResumed());
            check(anOutcomeOverTheLimit());
            check(aCompletionTriedAgain());
            check(deadlines());
            check(duplicatesThatWait());
        }

        private static void check(boolean ok) {
            if (!ok) {
                throw new AssertionError("a blocking path answered otherwise than expected");
            }
        }

        private boolean firstExecutionAndReplays() {
            IdempotencyKey key = key();
            Result<String> first = engine.execute(key, "{\"a\":1}", String.class, ctx -> "done");
            Result<String> nearCache = engine.execute(key, "{\"a\":1}", String.class, ctx -> "again");
            Result<String> fromStore = uncached.execute(key, "{\"a\":1}", String.class, ctx -> "again");
            Object untyped = uncached.execute(key(), "{\"a\":1}", ctx -> Map.of("a", 1)).value();
            return !first.replayed() && nearCache.replayed() && fromStore.replayed()
                    && "done".equals(fromStore.value()) && untyped instanceof Map;
        }

        private boolean aReusedKey() {
            IdempotencyKey key = key();
            uncached.execute(key, "{\"a\":1}", String.class, ctx -> "done");
            return throwsOn(() -> uncached.execute(key, "{\"a\":2}", String.class, ctx -> "other"),
                    dev.idem.api.KeyReusedException.class);
        }

        private boolean aTransientFailureThenARetry() {
            IdempotencyKey key = key();
            boolean failed = throwsOn(() -> engine.execute(key, "{}", String.class, ctx -> {
                throw new IllegalStateException("transient");
            }), IllegalStateException.class);
            return failed && !engine.execute(key, "{}", String.class, ctx -> "ok").replayed();
        }

        private boolean aFinalFailureStoredAndReplayed() {
            IdempotencyKey key = key();
            boolean stored = throwsOn(() -> engine.execute(key, "{}", String.class, ctx -> {
                throw new IllegalArgumentException("declined");
            }), dev.idem.api.FinalFailureException.class);
            return stored && throwsOn(() -> uncached.execute(key, "{}", String.class, ctx -> "ok"),
                    dev.idem.api.ReplayedFailureException.class);
        }

        private boolean stepsHandedBackAndResumed() {
            IdempotencyKey key = key();
            AtomicInteger charged = new AtomicInteger();
            boolean handedBack = throwsOn(() -> engine.execute(key, "{}", String.class, ctx -> {
                ctx.step("charge", Integer.class, charged::incrementAndGet);
                throw new IllegalStateException("after the charge");
            }), IllegalStateException.class);
            // The key keeps a lease of a millisecond: a caller that waits takes it over once it lapsed.
            String resumed = waiting.execute(key, "{}", String.class, ctx ->
                    "charged " + ctx.step("charge", Integer.class, charged::incrementAndGet)).value();
            return handedBack && "charged 1".equals(resumed) && charged.get() == 1;
        }

        private boolean anOutcomeOverTheLimit() {
            return throwsOn(() -> engine.execute(key(), "{}", String.class, ctx -> "x".repeat(4096)),
                    OutcomeNotStoredException.class);
        }

        private boolean aCompletionTriedAgain() {
            failCompletes.set(1);
            return engine.execute(key(), "{}", String.class, ctx -> "ok").stored();
        }

        private boolean deadlines() {
            Deadline spent = Deadline.after(Duration.ZERO);
            boolean refused = throwsOn(() -> engine.execute(key(), "{}", String.class,
                    CallOptions.builder().deadline(spent).build(), ctx -> "never"),
                    dev.idem.api.DeadlineExceededException.class);
            // Shorter than the engine's lease: the claim's lease is cut and a heartbeat keeps it.
            CallOptions budget = CallOptions.builder().deadline(Deadline.after(Duration.ofSeconds(10))).build();
            return refused && "ok".equals(engine.execute(key(), "{}", String.class, budget, ctx -> "ok").value());
        }

        private boolean duplicatesThatWait() {
            IdempotencyKey key = key();
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            conflicts = new CountDownLatch(2);
            String[] answers = new String[3];
            List<Thread> threads = new ArrayList<>();
            threads.add(new Thread(() -> answers[0] = waiting.execute(key, "{}", String.class, ctx -> {
                started.countDown();
                await(release);
                return "held";
            }).value(), CALLER + "-holder"));
            threads.get(0).start();
            await(started);
            for (int i = 1; i <= 2; i++) {
                int at = i;
                threads.add(new Thread(() -> answers[at] = waiting.execute(key, "{}", String.class,
                        ctx -> "ran twice").value(), CALLER + "-waiter-" + i));
                threads.get(i).start();
            }
            // Once both waiters met the key in progress (and wait, sharing their polls), the holder finishes.
            await(conflicts);
            release.countDown();
            for (Thread t : threads) {
                join(t);
            }
            return "held".equals(answers[0]) && "held".equals(answers[1]) && "held".equals(answers[2]);
        }

        private static boolean throwsOn(Supplier<?> call, Class<? extends Throwable> expected) {
            try {
                call.get();
                return false;
            } catch (RuntimeException e) {
                return expected.isInstance(e);
            }
        }

        private static void await(CountDownLatch latch) {
            try {
                if (!latch.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("not released");
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        private static void join(Thread t) {
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
