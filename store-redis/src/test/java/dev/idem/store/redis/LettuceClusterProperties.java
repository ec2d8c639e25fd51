package dev.idem.store.redis;

import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.StoreFixture;
import net.jqwik.api.Tag;

/** The kit's model-based properties and linearizable histories on a three-master cluster through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
@Tag("compat") // Lettuce's blocking form: the default build runs the kits through its non-blocking one
class LettuceClusterProperties extends IdempotencyStoreProperties {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
