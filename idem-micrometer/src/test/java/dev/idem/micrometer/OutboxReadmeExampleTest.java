package dev.idem.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.RetryPolicy;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.OutboxRecord;
import dev.idem.outbox.jdbc.Relay;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * idem-outbox-jdbc's README example, run as printed (readme-tests checks that README against the
 * region). It lives here because its relay binds idem-micrometer's {@link RelayMetrics}, which
 * idem-outbox-jdbc cannot depend on.
 */
@Timeout(60)
class OutboxReadmeExampleTest {
    record Charge(String id, String customerId) {
    }

    /** The caller's own table, written in the same transaction as the outbox row. */
    static final class Charges {
        void insert(Handle handle, Charge charge) {
            handle.createUpdate("INSERT INTO charges (id, customer_id) VALUES (:id, :c)")
                    .bind("id", charge.id()).bind("c", charge.customerId()).execute();
        }
    }

    /** Stands in for a Kafka producer whose send returns once the broker has the record. */
    static final class Kafka {
        final LinkedBlockingQueue<OutboxRecord> sent = new LinkedBlockingQueue<>();

        void send(OutboxRecord record) {
            sent.add(record);
        }
    }

    private volatile boolean running = true;

    private static byte[] json(Charge charge) {
        return ("{\"id\":\"" + charge.id() + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void enqueueInTheCallersTransactionAndRelay() throws Exception {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:readme-outbox-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        Outbox.builder(dataSource).build().createTableIfNotExists();
        Jdbi jdbi = Jdbi.create(dataSource);
        jdbi.useHandle(h -> h.execute("CREATE TABLE charges (id VARCHAR(64) PRIMARY KEY, customer_id VARCHAR(64))"));
        Charges charges = new Charges();
        Charge charge = new Charge("ch_1", "cus_1");
        String chargeId = "evt-ch_2";
        String customerId = "cus_2";
        byte[] bytes = "{\"id\":\"ch_2\"}".getBytes(StandardCharsets.UTF_8);
        MeterRegistry meterRegistry = new SimpleMeterRegistry();
        Kafka kafka = new Kafka();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            // tag::outbox[]
            Outbox outbox = Outbox.builder(dataSource).build();      // .tableName(..), .schema(..), .clock(..)

            // In the caller's transaction (Jdbi handle) ...
            jdbi.useTransaction(handle -> {
                charges.insert(handle, charge);
                outbox.enqueue(handle, OutboxMessage.of("charge.created", charge.customerId(), json(charge)));
            });
            // ... or on a plain JDBC connection with auto-commit off
            String eventId = outbox.enqueue(connection, new OutboxMessage(chargeId, "charge.created", customerId, bytes));
            connection.commit();

            Relay relay = outbox.relay(record -> kafka.send(record))  // any Publisher: returns = broker has it
                    .batchSize(100)
                    .maxAttempts(10)                                   // then dead, and onDeadLetter after the commit
                    .backoff(RetryPolicy.builder().baseDelay(Duration.ofSeconds(1)).maxDelay(Duration.ofMinutes(5))
                            .deadline(Duration.ofDays(1)).build())     // idem-client's full jitter
                    .retention(Duration.ofDays(7))                      // sent rows purged after this
                    .orderedByKey(false)
                    .listener(RelayMetrics.bind(meterRegistry, outbox)) // idem-micrometer: backlog and batch meters
                    .build();
            executor.submit(() -> {                                    // or relay.runOnce() from your scheduler
                relay.run(() -> running);                              // until running is false
                return null;                                           // a Callable: run throws InterruptedException
            });
            // end::outbox[]
            assertThat(eventId).isEqualTo(chargeId);

            List<OutboxRecord> received = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                OutboxRecord r = kafka.sent.poll(30, TimeUnit.SECONDS);
                assertThat(r).as("record %d relayed", i).isNotNull();
                received.add(r);
            }
            running = false;
            executor.shutdown();
            assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            assertThat(received).extracting(OutboxRecord::key).containsExactlyInAnyOrder("cus_1", "cus_2");
            assertThat(received).extracting(OutboxRecord::topic).containsOnly("charge.created");
            assertThat(kafka.sent).isEmpty();
            int rows = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM charges").mapTo(Integer.class).one());
            assertThat(rows).isEqualTo(1);
            assertThat(meterRegistry.find("idem.outbox.pending").gauge()).isNotNull();
        } finally {
            executor.shutdownNow();
        }
    }
}
