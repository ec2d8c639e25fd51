package dev.idem.http;

import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.common.annotation.Identifier;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The transactional contract on Quarkus REST in the JTA mode over a real PostgreSQL (the
 * application's Agroal datasource and Narayana): the resource books through a
 * {@code @Transactional} CDI bean writing through the injected {@code AgroalDataSource}
 * ({@link QuarkusJtaApp.Bookkeeper}), never through idem's handle, in the JTA transaction that
 * also stores its response: an application written without idem in mind. Crashes are in-process
 * ({@link InProcessCrash}).
 */
@QuarkusTest
@TestProfile(Backends.PostgresProfile.class)
class QuarkusJtaDataSourceContractTest extends AbstractTransactionalHttpContract {
    /** The {@code jta-bean} configuration (and its crashes) exists once something asked for it. */
    @BeforeEach
    void createTheConfiguration() {
        Arc.container().select(HttpIdempotency.class, Identifier.Literal.of("jta-bean")).get();
    }

    @AfterAll
    static void releaseCrashedWorkers() {
        if (QuarkusJtaApp.beanCrash != null) {
            QuarkusJtaApp.beanCrash.close();
        }
    }

    @Override
    Http http() {
        return new Http("http://127.0.0.1:" + AbstractQuarkusContract.port());
    }

    @Override
    String path() {
        return "/jta/bookings";
    }

    @Override
    int effects(String key) {
        return TransactionalApp.effects(Jdbi.create(QuarkusJtaApp.dataSource), key);
    }

    @Override
    void awaitCrashAndRestart() throws Exception {
        QuarkusJtaApp.beanCrash.awaitCrashAndRestart();
    }
}
