package dev.idem.spring.boot;

import dev.idem.api.store.IdempotencyStore;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.context.SmartLifecycle;

/**
 * Removes expired records every {@code idem.purge.interval}, at most
 * {@code idem.purge.batch-size} per run, on one daemon thread of its own. Stores whose
 * backend expires records natively (Redis, DynamoDB) are left alone. A failing run is logged
 * and the next one tries again.
 */
public final class IdemPurgeScheduler implements SmartLifecycle {
    private static final System.Logger LOG = System.getLogger(IdemPurgeScheduler.class.getName());

    private final IdempotencyStore store;
    private final Duration interval;
    private final int batchSize;
    private ScheduledExecutorService executor;

    /**
     * Creates the scheduler (started with the application context).
     *
     * @param store the store to purge
     * @param interval time between runs; positive
     * @param batchSize the most records one run removes; positive
     */
    public IdemPurgeScheduler(IdempotencyStore store, Duration interval, int batchSize) {
        this.store = Objects.requireNonNull(store, "store");
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("idem.purge.interval must be positive but was " + interval);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("idem.purge.batch-size must be positive but was " + batchSize);
        }
        this.interval = interval;
        this.batchSize = batchSize;
    }

    /**
     * Runs one purge now.
     *
     * @return how many records were removed
     */
    public int purgeOnce() {
        return store.purgeExpired(batchSize);
    }

    @Override
    public synchronized void start() {
        if (executor != null || store.capabilities().nativeExpiry()) {
            return;
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-purge");
            t.setDaemon(true);
            return t;
        });
        long millis = interval.toMillis();
        executor.scheduleWithFixedDelay(() -> {
            try {
                purgeOnce();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "idem: purging expired records failed; retrying in "
                        + interval, e);
            }
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void stop() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }
}
