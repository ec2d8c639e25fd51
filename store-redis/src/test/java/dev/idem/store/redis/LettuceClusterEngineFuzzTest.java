package dev.idem.store.redis;

import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.store.tck.StoreFixture;
import org.junit.jupiter.api.Tag;

/** The engine-level fuzz on a three-master cluster through Lettuce (its asynchronous API, RESP3, an application's String-codec connections). */
@Tag("compat") // Lettuce's blocking form: the default build runs the kits through its non-blocking one
class LettuceClusterEngineFuzzTest extends EngineFuzzContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(Client.LETTUCE, true);
    }
}
