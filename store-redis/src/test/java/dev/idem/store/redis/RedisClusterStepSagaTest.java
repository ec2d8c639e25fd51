package dev.idem.store.redis;

import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.tck.StoreFixture;

/** The step saga against a real three-master Redis Cluster started by the tests. */
class RedisClusterStepSagaTest extends StepSagaContract {
    @Override
    protected StoreFixture createFixture() {
        return new RedisFixture(ClusterClients.A, ClusterClients.B);
    }
}
