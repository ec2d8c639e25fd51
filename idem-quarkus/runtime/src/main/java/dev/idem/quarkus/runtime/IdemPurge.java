package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.quarkus.IdemConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Deletes expired records every {@code idem.purge.interval}, at most {@code idem.purge.batch-size}
 * at a time, for stores that do not expire records themselves (JDBC); on one daemon thread,
 * stopped at shutdown. Wired by the extension; not for applications.
 */
@Singleton
public class IdemPurge {
    private static final System.Logger LOG = System.getLogger(IdemPurge.class.getName());

    private ScheduledExecutorService executor;

    /** Created by CDI. */
    public IdemPurge() {
    }

    /**
     * Starts purging, if enabled and needed.
     *
     * @param event startup
     * @param store the store
     * @param config the configuration
     */
    synchronized void start(@Observes StartupEvent event, IdempotencyStore store, IdemConfig config) {
        IdemConfig.Purge p = config.purge();
        if (!p.enabled() || executor != null || store.capabilities().nativeExpiry()) {
            return;
        }
        if (p.batchSize() < 1 || p.interval().isNegative() || p.interval().isZero()) {
            throw new IllegalStateException("idem.purge.interval and idem.purge.batch-size must be positive but were "
                    + p.interval() + " and " + p.batchSize());
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idem-purge");
            t.setDaemon(true);
            return t;
        });
        long millis = p.interval().toMillis();
        executor.scheduleWithFixedDelay(() -> {
            try {
                store.purgeExpired(p.batchSize());
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "idem: purging expired records failed; retrying in "
                        + p.interval(), e);
            }
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops purging.
     *
     * @param event shutdown
     */
    synchronized void stop(@Observes ShutdownEvent event) {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }
}
