package dev.idem.benchmarks.internal;

/**
 * A log-linear latency histogram in nanoseconds: 16 sub-buckets per power of two, so any
 * reported percentile is within about 6% above the true value. Not thread-safe: one per
 * thread, merged under the caller's lock.
 */
public final class LatencyHistogram {
    private static final int SUB = 16;
    private static final int BUCKETS = 64 * SUB;

    private final long[] counts = new long[BUCKETS];
    private long total;

    /** Records one latency. */
    public void record(long nanos) {
        counts[index(Math.max(1, nanos))]++;
        total++;
    }

    /** Adds another histogram's counts to this one. */
    public void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
    }

    /** Forgets everything recorded. */
    public void clear() {
        java.util.Arrays.fill(counts, 0);
        total = 0;
    }

    /** How many latencies were recorded. */
    public long count() {
        return total;
    }

    /** The upper bound of the bucket holding the {@code q} quantile (0 &lt; q &lt;= 1), or 0 if empty. */
    public long quantile(double q) {
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return upperBound(i);
            }
        }
        return upperBound(BUCKETS - 1);
    }

    private static int index(long v) {
        int exp = 63 - Long.numberOfLeadingZeros(v);
        if (exp < 4) {
            return (int) v;
        }
        int sub = (int) ((v >>> (exp - 4)) & (SUB - 1));
        return exp * SUB + sub;
    }

    private static long upperBound(int index) {
        int exp = index / SUB;
        int sub = index % SUB;
        if (exp < 4) {
            return index;
        }
        return ((long) (SUB + sub + 1) << (exp - 4)) - 1;
    }
}
