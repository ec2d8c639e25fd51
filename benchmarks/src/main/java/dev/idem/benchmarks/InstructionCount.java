package dev.idem.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Runs one benchmark method in a loop for {@code benchmarks/icount}, which counts the CPU
 * instructions it executes under valgrind's callgrind: on a machine shared with other builds,
 * an instruction count is stable where a time is not. The operation is a JMH benchmark of this
 * module, set up by its own {@code @Setup} ({@code StoreBenchmark.engineReplay@REDIS},
 * {@code FingerprintBenchmark.fingerprint@1024}, {@code MemoryReplayBenchmark.replay}): the
 * numbers are of the very code JMH times.
 *
 * <p>Protocol on standard input and output, so the script turns counting on and off around the
 * measured calls only: warm up ({@code warmup} calls, so the JIT has compiled the path), print
 * {@code READY} and wait for a line; run {@code calls} calls, print {@code DONE} and wait for a
 * line; then tear down. Arguments: {@code operation warmup calls}.
 */
public final class InstructionCount {
    private InstructionCount() {
    }

    /**
     * Runs the protocol above.
     *
     * @param args the operation ({@code Class.method} or {@code Class.method@param}), warm-up calls, measured calls
     * @throws Exception if the setup or a call fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: InstructionCount Class.method[@param] warmup calls; operations: "
                    + String.join(", ", operationNames()));
            System.exit(2);
        }
        Operation op = operation(args[0]);
        int warmup = Integer.parseInt(args[1]);
        int calls = Integer.parseInt(args[2]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try {
            long sink = 0;
            for (int i = 0; i < warmup; i++) {
                sink += System.identityHashCode(op.call.call()) & 1;
            }
            System.out.println("READY " + sink);
            System.out.flush();
            in.readLine();
            for (int i = 0; i < calls; i++) {
                sink += System.identityHashCode(op.call.call()) & 1;
            }
            System.out.println("DONE " + sink);
            System.out.flush();
            in.readLine();
        } finally {
            op.tearDown.run();
        }
    }

    private record Operation(Callable<?> call, Runnable tearDown) {
    }

    private static String[] operationNames() {
        return new String[] {"StoreBenchmark.<method>@<BACKEND>", "FingerprintBenchmark.<method>@<size>",
            "MemoryReplayBenchmark.<method>", "ScalingBenchmark.<method>"};
    }

    private static Operation operation(String spec) throws Exception {
        int at = spec.indexOf('@');
        String name = at < 0 ? spec : spec.substring(0, at);
        String param = at < 0 ? null : spec.substring(at + 1);
        String cls = name.substring(0, name.indexOf('.'));
        String method = name.substring(name.indexOf('.') + 1);
        switch (cls) {
            case "StoreBenchmark": {
                StoreBenchmark b = new StoreBenchmark();
                b.backend = Backend.valueOf(param.toUpperCase(Locale.ROOT));
                b.setUp();
                return new Operation(method(b, method), b::tearDown);
            }
            case "FingerprintBenchmark": {
                FingerprintBenchmark b = new FingerprintBenchmark();
                b.size = Integer.parseInt(param);
                b.setUp();
                return new Operation(method(b, method), () -> { });
            }
            case "MemoryReplayBenchmark": {
                MemoryReplayBenchmark b = new MemoryReplayBenchmark();
                b.setUp();
                return new Operation(method(b, method), () -> { });
            }
            default:
                throw new IllegalArgumentException("unknown benchmark class " + cls);
        }
    }

    private static Callable<?> method(Object benchmark, String name) throws NoSuchMethodException {
        java.lang.reflect.Method m = benchmark.getClass().getMethod(name);
        // A lambda over a reflective call would count the reflection too: bind a direct call instead.
        try {
            java.lang.invoke.MethodHandle h = java.lang.invoke.MethodHandles.publicLookup().unreflect(m)
                    .bindTo(benchmark);
            return () -> {
                try {
                    return h.invoke();
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            };
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
