package dev.idem.benchmarks.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * CPU time of the benchmark's own threads per operation ({@code -prof
 * dev.idem.benchmarks.internal.ThreadCpuProfiler}): the sum of what the JVM reports as CPU time
 * of every JMH worker thread over an iteration, divided by the operations of that iteration, as
 * {@code cpu.time.norm} in nanoseconds per operation. Unlike the average time, it leaves out the
 * time a call waits for the network, the server, or a core taken by another process, and it
 * leaves out every other thread of the JVM (JIT, GC, and the in-process DynamoDB Local or
 * H2 server threads). On a shared machine it is steadier than time, though caches and other
 * processes still move it a little; the difference of two benchmarks on the same store is the
 * CPU one adds over the other.
 */
public final class ThreadCpuProfiler implements InternalProfiler {
    private static final String WORKER = "-jmh-worker-";

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private Map<Long, Long> before = Map.of();

    /** Checks that the JVM measures thread CPU time. */
    public ThreadCpuProfiler() {
        if (!threads.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM does not measure thread CPU time");
        }
        if (!threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
    }

    @Override
    public String getDescription() {
        return "CPU time of the benchmark threads per operation (ThreadMXBean)";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        before = workerCpu();
    }

    @Override
    public Collection<? extends Result<?>> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        long total = 0;
        for (Map.Entry<Long, Long> e : workerCpu().entrySet()) {
            // A worker started during the iteration counts from zero.
            total += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        long ops = result.getMetadata().getAllOps();
        List<Result<?>> out = new ArrayList<>();
        if (ops > 0) {
            out.add(new ScalarResult("cpu.time.norm", (double) total / ops, "ns/op", AggregationPolicy.AVG));
        }
        return out;
    }

    private Map<Long, Long> workerCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] != null && infos[i].getThreadName().contains(WORKER)) {
                long t = threads.getThreadCpuTime(ids[i]);
                if (t >= 0) {
                    cpu.put(ids[i], t);
                }
            }
        }
        return cpu;
    }
}
