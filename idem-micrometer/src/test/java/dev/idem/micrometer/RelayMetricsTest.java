package dev.idem.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.client.RetryPolicy;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.Relay;
import dev.idem.outbox.jdbc.RelayBatch;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/** The relay's meters against a real (H2) outbox, with an injected clock and ticker. */
class RelayMetricsTest {
    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    };

    @Test
    void batchesAndTheBacklogAreMeteredSoAStuckRelayShows() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:relay-metrics-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        Outbox outbox = Outbox.builder(ds).clock(clock).build().createTableIfNotExists();
        MeterRegistry registry = new SimpleMeterRegistry();
        RelayMetrics metrics = RelayMetrics.builder(registry, outbox).clock(clock).backlogRefresh(Duration.ZERO)
                .build();
        AtomicBoolean brokerUp = new AtomicBoolean(false);
        AtomicBoolean crash = new AtomicBoolean(false);
        long[] ticks = {0};
        Relay relay = outbox.relay(r -> {
            if (crash.get()) {
                throw new Crash();
            }
            if (!brokerUp.get()) {
                throw new IOException("broker down");
            }
        }).clock(clock).maxAttempts(2).listener(metrics).ticker(() -> ticks[0] += 5_000_000)
                .backoff(RetryPolicy.builder().baseDelay(Duration.ofSeconds(1)).maxDelay(Duration.ofSeconds(1))
                        .deadline(Duration.ofDays(1)).random(new Random(3)).build())
                .build();
        Jdbi.create(ds).useTransaction(h -> {
            for (int i = 0; i < 3; i++) {
                outbox.enqueue(h, OutboxMessage.of("t", null, "x".getBytes(StandardCharsets.UTF_8)));
            }
        });
        now.addAndGet(90_000);

        assertThat(gauge(registry, RelayMetrics.PENDING)).isEqualTo(3);
        assertThat(registry.get(RelayMetrics.OLDEST_PENDING_AGE).timeGauge().value(TimeUnit.SECONDS)).isEqualTo(90);

        relay.runOnce();                       // broker down: three retries with backoff
        assertThat(counter(registry, RelayMetrics.RETRIED)).isEqualTo(3);
        assertThat(registry.get(RelayMetrics.RETRY_DELAY).timer().count()).isEqualTo(3);
        assertThat(gauge(registry, RelayMetrics.PENDING)).isEqualTo(3);

        now.addAndGet(2_000);
        brokerUp.set(true);
        crash.set(true);
        assertThatThrownBy(relay::runOnce).isInstanceOf(Crash.class);
        assertThat(registry.get(RelayMetrics.BATCH).tag("outcome", "failed").timer().count()).isEqualTo(1);
        assertThat(counter(registry, RelayMetrics.PUBLISHED)).as("rolled back: nothing counted").isZero();
        crash.set(false);

        relay.runOnce();
        assertThat(counter(registry, RelayMetrics.PUBLISHED)).isEqualTo(3);
        assertThat(gauge(registry, RelayMetrics.PENDING)).isZero();
        assertThat(registry.get(RelayMetrics.OLDEST_PENDING_AGE).timeGauge().value(TimeUnit.SECONDS)).isZero();
        assertThat(registry.get(RelayMetrics.BATCH).tag("outcome", "committed").timer().count()).isEqualTo(2);
        assertThat(registry.get(RelayMetrics.BATCH).tag("outcome", "committed").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(10);
        assertThat(registry.get(RelayMetrics.BATCH).tag("table", outbox.tableName()).timers()).hasSize(3);

        brokerUp.set(false);
        Jdbi.create(ds).useTransaction(h -> outbox.enqueue(h, OutboxMessage.of("t", null, new byte[] {1})));
        relay.runOnce();
        now.addAndGet(2_000);
        relay.runOnce();                       // second failure: dead
        assertThat(counter(registry, RelayMetrics.DEAD)).isEqualTo(1);
        assertThat(gauge(registry, RelayMetrics.DEAD_ROWS)).isEqualTo(1);
        assertThat(gauge(registry, RelayMetrics.PENDING)).isZero();

        // A batch whose commit failed and whose rows could not be re-read: timed, not counted.
        metrics.onBatch(new RelayBatch(RelayBatch.Outcome.UNKNOWN, 4, 4, 0, 0, List.of(), Duration.ofMillis(7),
                new IllegalStateException("connection reset")));
        assertThat(registry.get(RelayMetrics.BATCH).tag("outcome", "unknown").timer().count()).isEqualTo(1);
        assertThat(counter(registry, RelayMetrics.PUBLISHED)).isEqualTo(3);
        // One whose answer was lost but whose rows showed it landed: counted like any committed batch.
        metrics.onBatch(new RelayBatch(RelayBatch.Outcome.COMMITTED, 2, 2, 0, 0, List.of(), Duration.ofMillis(7),
                new IllegalStateException("connection reset")));
        assertThat(counter(registry, RelayMetrics.PUBLISHED)).isEqualTo(5);
    }

    @Test
    void theBacklogIsReadAtMostOncePerRefreshAndNaNWhileTheDatabaseCannotAnswer() {
        JdbcDataSource ds = new JdbcDataSource();
        String url = "jdbc:h2:mem:relay-metrics-" + UUID.randomUUID();
        ds.setURL(url + ";DB_CLOSE_DELAY=-1");
        Outbox outbox = Outbox.builder(ds).clock(clock).build().createTableIfNotExists();
        MeterRegistry registry = new SimpleMeterRegistry();
        RelayMetrics.builder(registry, outbox).clock(clock).backlogRefresh(Duration.ofSeconds(10)).build();
        Jdbi.create(ds).useTransaction(h -> outbox.enqueue(h, OutboxMessage.of("t", null, new byte[] {1})));
        assertThat(gauge(registry, RelayMetrics.PENDING)).isEqualTo(1);
        Jdbi.create(ds).useTransaction(h -> outbox.enqueue(h, OutboxMessage.of("t", null, new byte[] {2})));
        assertThat(gauge(registry, RelayMetrics.PENDING)).as("cached").isEqualTo(1);
        now.addAndGet(10_000);
        assertThat(gauge(registry, RelayMetrics.PENDING)).isEqualTo(2);

        Jdbi.create(ds).useHandle(h -> h.execute("DROP TABLE " + outbox.tableName()));
        now.addAndGet(10_000);
        assertThat(gauge(registry, RelayMetrics.PENDING)).isNaN();
        assertThatThrownBy(() -> RelayMetrics.builder(registry, outbox).backlogRefresh(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
    }

    /** Stands for the relay's process dying mid-batch. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.get(name).counter().count();
    }
}
