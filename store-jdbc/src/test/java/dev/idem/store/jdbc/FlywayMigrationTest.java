package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Update;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The DDL shipped under {@code dev/idem/store/jdbc/schema/<dialect>/} runs unchanged as Flyway
 * migrations (including the MySQL procedures, written without DELIMITER), and the store works
 * on the schema they create.
 */
@Timeout(120)
class FlywayMigrationTest {
    @ParameterizedTest
    @EnumSource(Backend.class)
    void shippedScriptsMigrateWithFlywayAndTheStoreRunsOnTheResult(Backend backend) {
        String name = "fw_" + UUID.randomUUID().toString().substring(0, 8);
        // Flyway quotes the schema name; the store does not, and H2 folds unquoted names to upper case.
        String schema = backend == Backend.H2 ? name.toUpperCase(Locale.ROOT) : name;
        MigrateResult result = Flyway.configure()
                .dataSource(backend.dataSource())
                .schemas(schema)
                .createSchemas(true)
                .locations("classpath:dev/idem/store/jdbc/schema/" + backend.dialect.resourceName())
                .load()
                .migrate();
        assertThat(result.success).isTrue();
        assertThat(result.migrationsExecuted).isEqualTo(backend == Backend.MARIADB ? 4 : 2);

        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(backend.dataSource()).schema(schema).build();
        IdempotencyKey key = IdempotencyKey.of("fw-" + UUID.randomUUID(), "op", "k");
        Duration lease = Duration.ofSeconds(30);
        assertThat(store.claim(key, new byte[] {1}, 1L, lease, Duration.ofMinutes(5)).status())
                .isEqualTo(ClaimResult.Status.ACQUIRED);
        assertThat(store.claim(key, new byte[] {2}, 2L, lease, Duration.ofMinutes(5)).status())
                .isEqualTo(ClaimResult.Status.EXISTING);
        assertThat(store.extendLease(key, 1L, lease)).isPresent();
        assertThat(store.complete(key, 1L, new byte[] {42}, Duration.ofMinutes(5))).isTrue();
        assertThat(store.find(key).orElseThrow().outcome()).containsExactly(42);
    }

    /**
     * A table of the previous version, with rows in it, upgrades by the new scripts alone: its
     * rows stay readable (creation time unknown, so reported as the read time) and can be taken
     * over, checkpointed and completed.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aPopulatedTableOfThePreviousVersionUpgradesInPlace(Backend backend) {
        String name = "up_" + UUID.randomUUID().toString().substring(0, 8);
        String schema = backend == Backend.H2 ? name.toUpperCase(Locale.ROOT) : name;
        String before = backend == Backend.MARIADB ? "2" : "1";
        Flyway.configure().dataSource(backend.dataSource()).schemas(schema).createSchemas(true)
                .locations("classpath:dev/idem/store/jdbc/schema/" + backend.dialect.resourceName())
                .target(before).load().migrate();
        IdempotencyKey done = IdempotencyKey.of("up-" + UUID.randomUUID(), "op", "done");
        IdempotencyKey lapsed = IdempotencyKey.of(done.scope(), "op", "lapsed");
        long far = System.currentTimeMillis() + Duration.ofHours(1).toMillis();
        Jdbi.create(backend.dataSource()).useHandle(h -> {
            legacyRow(h, backend, schema, done, "C", null, far, new byte[] {42});
            legacyRow(h, backend, schema, lapsed, "I", 1L, far, null);
        });

        MigrateResult result = Flyway.configure().dataSource(backend.dataSource()).schemas(schema)
                .locations("classpath:dev/idem/store/jdbc/schema/" + backend.dialect.resourceName()).load().migrate();
        assertThat(result.migrationsExecuted).isEqualTo(backend == Backend.MARIADB ? 2 : 1);

        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(backend.dataSource()).schema(schema).build();
        StoredRecord completed = store.find(done).orElseThrow();
        assertThat(completed.outcome()).containsExactly(42);
        assertThat(completed.journal()).isNull();
        ClaimResult takeover = store.claim(lapsed, new byte[] {1}, 2L, Duration.ofSeconds(30), Duration.ofMinutes(5));
        assertThat(takeover.status()).isEqualTo(ClaimResult.Status.TAKEN_OVER);
        assertThat(takeover.record().attempt()).isEqualTo(2);
        assertThat(takeover.record().createdAt()).isEqualTo(takeover.storeTime());
        assertThat(store.checkpoint(lapsed, 2L, new byte[] {7})).isTrue();
        assertThat(store.find(lapsed).orElseThrow().journal()).containsExactly(7);
        assertThat(store.complete(lapsed, 2L, new byte[] {8}, Duration.ofMinutes(5))).isTrue();
        // createTableIfNotExists on the upgraded table changes nothing and fails on nothing.
        store.createTableIfNotExists();
        assertThat(store.find(lapsed).orElseThrow().outcome()).containsExactly(8);
    }

    private static void legacyRow(Handle h, Backend backend, String schema, IdempotencyKey key, String state,
            Long leaseUntil, long expiresAt, byte[] outcome) {
        Update u = h.createUpdate("INSERT INTO " + schema + ".idem_record (scope, operation, idem_key, state,"
                + " fingerprint, token, attempt, lease_until, expires_at, outcome) VALUES (:scope, :operation, :key,"
                + " :state, :fp, 1, 1, :lease, :expires, :outcome)");
        if (backend == Backend.MARIADB) {
            u.bind("scope", key.scope().getBytes(StandardCharsets.UTF_8))
                    .bind("operation", key.operation().getBytes(StandardCharsets.UTF_8))
                    .bind("key", key.key().getBytes(StandardCharsets.US_ASCII));
        } else {
            u.bind("scope", key.scope()).bind("operation", key.operation()).bind("key", key.key());
        }
        u.bind("state", state).bind("fp", new byte[] {1}).bind("lease", leaseUntil).bind("expires", expiresAt)
                .bind("outcome", outcome).execute();
    }
}
