package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** The store kit on a standalone server through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
@Tag("compat") // Lettuce's blocking form: the default build runs the kits through its non-blocking one
class LettuceStandaloneContractTest extends IdempotencyStoreContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, false);
    }
}
