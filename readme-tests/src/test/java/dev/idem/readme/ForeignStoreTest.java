package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.ForeignStoreWorkException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The user report behind the check: the quick start's engine on the memory store, given
 * {@code jdbcStore.transactional(...)}, answered "fencing token is stale". It must refuse the
 * work, naming both stores, before anything is claimed or run.
 */
class ForeignStoreTest {
    @Test
    void anEngineOnTheMemoryStoreRefusesTransactionalWorkOfAJdbcStore() {
        JdbcIdempotencyStore jdbcStore = JdbcIdempotencyStore.builder(QuickStartTest.h2()).build()
                .createTableIfNotExists();
        MemoryIdempotencyStore memory = MemoryIdempotencyStore.create();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(memory).build();
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("create-charge").key("two-stores");
        AtomicInteger runs = new AtomicInteger();

        assertThatThrownBy(() -> engine.callAtomically(key, "{}", String.class,
                jdbcStore.transactional(handle -> "charged " + runs.incrementAndGet())))
                .isInstanceOf(ForeignStoreWorkException.class)
                .hasMessageContaining(jdbcStore.toString())
                .hasMessageContaining(memory.toString())
                .hasMessageNotContaining("fencing token");
        assertThat(runs).hasValue(0);
        assertThat(memory.find(key)).isEmpty();
        assertThat(jdbcStore.find(key)).isEmpty();

        // On its own store the same work runs.
        IdempotencyEngine onJdbc = IdempotencyEngine.builder().store(jdbcStore).build();
        assertThat(onJdbc.callAtomically(key, "{}", String.class,
                jdbcStore.transactional(handle -> "charged " + runs.incrementAndGet()))).isEqualTo("charged 1");
    }
}
