package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
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
        assertThat(result.migrationsExecuted).isEqualTo(backend == Backend.MARIADB ? 2 : 1);

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
}
