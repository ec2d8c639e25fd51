package dev.idem.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidIdempotencyKeyException;
import dev.idem.api.StoreUnavailableException;
import dev.idem.api.store.ClaimResult;
import java.time.Duration;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Builder validation, dialect detection, custom tables, and refusal of bad input before anything is written. */
@Timeout(60)
class ConfigurationAndInputTest {
    private final String scope = "cfg-" + UUID.randomUUID();

    @Test
    void theStoreNamesTheDataSourceItWasBuiltOverAndNoneForAJdbi() {
        javax.sql.DataSource dataSource = Backend.H2.dataSource();
        assertThat(JdbcIdempotencyStore.builder(dataSource).build().dataSource()).containsSame(dataSource);
        assertThat(JdbcIdempotencyStore.builder(Jdbi.create(dataSource)).build().dataSource()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"idem; DROP TABLE idem_record", "idem-record", "1idem", "", "idem record", "idem\"x",
        "a_very_long_identifier_that_goes_past_the_sixty_three_character_limit"})
    void tableNamesThatCouldInjectSqlAreRejectedAtOnce(String name) {
        JdbcIdempotencyStore.Builder b = JdbcIdempotencyStore.builder(Backend.H2.dataSource());
        assertThatThrownBy(() -> b.tableName(name)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'");
        assertThatThrownBy(() -> b.schema(name)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void builderSettersRejectBadValuesNamingThem() {
        JdbcIdempotencyStore.Builder b = JdbcIdempotencyStore.builder(Backend.H2.dataSource());
        assertThatThrownBy(() -> b.maxOutcomeBytes(1000)).hasMessageContaining("1000");
        assertThatThrownBy(() -> b.queryTimeout(Duration.ofMillis(300))).hasMessageContaining("PT0.3S");
        assertThatThrownBy(() -> b.dialect(null)).isInstanceOf(NullPointerException.class);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void dialectIsDetectedFromTheConnection(Backend backend) {
        assertThat(backend.store().dialect()).isEqualTo(backend.dialect);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void customTableInACustomSchemaIsCreatedAndUsed(Backend backend) {
        String schemaName = "idem_custom";
        Jdbi jdbi = Jdbi.create(backend.dataSource());
        jdbi.useHandle(h -> h.execute(backend == Backend.MARIADB ? "CREATE DATABASE IF NOT EXISTS " + schemaName
                : "CREATE SCHEMA IF NOT EXISTS " + schemaName));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(backend.dataSource()).schema(schemaName)
                .tableName("Custom_Records").build().createTableIfNotExists().createTableIfNotExists();
        IdempotencyKey key = IdempotencyKey.of(scope, "op", "k");
        assertThat(store.claim(key, new byte[] {1}, 1L, Duration.ofSeconds(5), Duration.ofMinutes(1)).claimed())
                .isTrue();
        int inCustom = jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + schemaName
                + ".Custom_Records WHERE token = 1").mapTo(Integer.class).one());
        assertThat(inCustom).isEqualTo(1);
        assertThat(backend.store().find(key)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void missingTableIsANonRetryableStoreFailureNamingTheFix(Backend backend) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(backend.dataSource()).tableName("no_such_table")
                .build();
        assertThatThrownBy(() -> store.find(IdempotencyKey.of(scope, "op", "k")))
                .isInstanceOfSatisfying(StoreUnavailableException.class, e -> {
                    assertThat(e.retryable()).isFalse();
                    assertThat(e.getMessage()).contains("README");
                });
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void badInputGetsATypedErrorAndNothingIsStored(Backend backend) {
        JdbcIdempotencyStore store = backend.store();
        IdempotencyKey key = IdempotencyKey.of(scope, "op", "bad");
        assertThatThrownBy(() -> store.claim(key, new byte[JdbcIdempotencyStore.MAX_FINGERPRINT_BYTES + 1], 1L,
                Duration.ofSeconds(5), Duration.ofMinutes(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1025");
        assertThatThrownBy(() -> store.claim(key, new byte[] {1}, 1L, Duration.ZERO, Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease");
        assertThatThrownBy(() -> store.claim(key, null, 1L, Duration.ofSeconds(5), Duration.ofMinutes(1)))
                .isInstanceOf(NullPointerException.class);
        // A lone surrogate cannot reach the store: idem-api refuses it when the key is made
        // (the store checks again, for keys from older API versions).
        assertThatThrownBy(() -> IdempotencyKey.of(scope + "\ud800", "op", "bad"))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessageContaining("surrogate");
        assertThat(store.find(key)).isEmpty();

        ClaimResult claim = store.claim(key, new byte[] {1}, 7L, Duration.ofSeconds(5), Duration.ofMinutes(1));
        assertThat(claim.claimed()).isTrue();
        assertThatThrownBy(() -> store.complete(key, 7L, new byte[store.capabilities().maxOutcomeBytes() + 1],
                Duration.ofMinutes(1))).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.find(key).orElseThrow().outcome()).isNull();
        assertThatThrownBy(() -> store.purgeExpired(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0");
    }

    @Test
    void scopesDifferingOnlyInCaseOrTrailingSpacesStayApartOnMariaDb() {
        // MariaDB's default collations are case-insensitive and pad spaces; the VARBINARY columns are not.
        JdbcIdempotencyStore store = Backend.MARIADB.store();
        String[] scopes = {scope + "-a", scope + "-A", scope + "-a ", scope + "-\u00e4"};
        for (int i = 0; i < scopes.length; i++) {
            ClaimResult r = store.claim(IdempotencyKey.of(scopes[i], "op", "k"), new byte[] {1}, i, Duration.ofSeconds(5),
                    Duration.ofMinutes(1));
            assertThat(r.claimed()).as(scopes[i]).isTrue();
        }
    }
}
