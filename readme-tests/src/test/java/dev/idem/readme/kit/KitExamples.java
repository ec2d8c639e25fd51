package dev.idem.readme.kit;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.tck.EncryptionAtRestContract;
import dev.idem.engine.tck.EngineFuzzContract;
import dev.idem.engine.tck.FaultInjectionContract;
import dev.idem.engine.tck.NonBlockingFaultInjectionContract;
import dev.idem.engine.tck.RawBytes;
import dev.idem.engine.tck.StepSagaContract;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.store.tck.IdempotencyStoreContract;
import dev.idem.store.tck.IdempotencyStoreProperties;
import dev.idem.testsupport.MutableClock;
import dev.idem.store.tck.NonBlockingStoreContract;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import javax.sql.DataSource;

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

    /** Where a JDBC fixture's records are; unused by this memory fixture. */
    static DataSource dataSource() {
        org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
        ds.setURL("jdbc:h2:mem:kit-examples");
        return ds;
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

// tag::store-kit-non-blocking[]
class MyStoreNonBlockingContractTest extends NonBlockingStoreContract {
    @Override protected StoreFixture createStoreFixture() { return new MyFixture(); }
}
class MyStoreNonBlockingFaultInjectionTest extends NonBlockingFaultInjectionContract {  // idem-engine-tck
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
}
// end::store-kit-non-blocking[]

// tag::engine-kit[]
class MyStepSagaTest extends StepSagaContract {
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
}
class MyFaultInjectionTest extends FaultInjectionContract {
    @Override protected StoreFixture createFixture() { return new MyFixture(); } // simulated clock
}
class MyNonBlockingFaultInjectionTest extends NonBlockingFaultInjectionContract { // store with a NonBlockingStore
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
}
class MyEncryptionAtRestTest extends EncryptionAtRestContract {
    private final DataSource dataSource = MyFixture.dataSource();   // your backend's
    @Override protected StoreFixture createFixture() { return new MyFixture(); }
    // The record's bytes as your backend's own client reads them (RawBytes has helpers):
    @Override protected byte[] rawRecord(IdempotencyKey key) throws Exception {
        return RawBytes.ofQuery(dataSource, "SELECT * FROM idem_record WHERE scope = ? AND operation = ? AND idem_key = ?",
                key.scope(), key.operation(), key.key());
    }
}
// end::engine-kit[]
