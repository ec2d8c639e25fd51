package dev.idem.readme.kit;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.store.tck.MutableClock;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;

/**
 * The store-tck and engine-tck READMEs' classes, compiled here. The build does not run them
 * (readme-tests' pom excludes this package from Surefire): every adapter in the repository runs
 * the same suites with its own fixture, store-memory with exactly this one.
 */
final class KitExamples {
    private KitExamples() {
    }
}

/** What the READMEs call {@code MyFixture}: here the memory store on a simulated clock. */
final class MyFixture implements StoreFixture {
    private final MutableClock clock = new MutableClock();
    private final MemoryIdempotencyStore store = MemoryIdempotencyStore.builder().clock(clock).build();

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public void advance(Duration d) {
        clock.advance(d);
    }

    @Override
    public boolean clockIsSimulated() {
        return true;
    }
}

// tag::store-kit[]
class MyStoreContractTest extends IdempotencyStoreContract {      // JUnit 5
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
}
class MyStoreProperties extends IdempotencyStoreProperties {       // jqwik
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
}
class MyEngineFuzzTest extends EngineFuzzContract {                // idem-engine-tck
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
}
// end::store-kit[]

// tag::engine-kit[]
class MyStepSagaTest extends StepSagaContract {
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
}
class MyFaultInjectionTest extends FaultInjectionContract {
    @Override protected StoreFixture createFixture() { return new MyFixture(); } // simulated clock
}
// end::engine-kit[]
