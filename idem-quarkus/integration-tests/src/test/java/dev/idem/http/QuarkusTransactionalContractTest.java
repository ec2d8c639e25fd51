package dev.idem.http;

import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.common.annotation.Identifier;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The transactional contract on Quarkus REST over a real PostgreSQL (the application's Agroal
 * datasource): blocking resources, idem's filters suspending the request while the key is claimed
 * and the outcome stored, the transaction held by idem's thread while the resource writes on it
 * from a Quarkus worker. Crashes are in-process ({@link InProcessCrash}).
 */
@QuarkusTest
@TestProfile(Backends.PostgresProfile.class)
class QuarkusTransactionalContractTest extends AbstractTransactionalHttpContract {
    /** The {@code tx} configuration (and its crashes) exists once something asked for it. */
    @BeforeEach
    void createTheConfiguration() {
        Arc.container().select(HttpIdempotency.class, Identifier.Literal.of("tx")).get();
    }

    @AfterAll
    static void releaseCrashedWorkers() {
        if (QuarkusTransactionalApp.crash != null) {
            QuarkusTransactionalApp.crash.close();
        }
    }

    @Override
    Http http() {
        return new Http("http://127.0.0.1:" + AbstractQuarkusContract.port());
    }

    @Override
    int effects(String key) {
        return TransactionalApp.effects(Jdbi.create(QuarkusTransactionalApp.dataSource), key);
    }

    @Override
    void awaitCrashAndRestart() throws Exception {
        QuarkusTransactionalApp.crash.awaitCrashAndRestart();
    }
}
