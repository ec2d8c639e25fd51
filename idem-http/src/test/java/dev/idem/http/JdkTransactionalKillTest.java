package dev.idem.http;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.h2.jdbcx.JdbcDataSource;
import org.h2.tools.Server;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The transactional contract on the JDK server with real crashes: the server
 * ({@link TransactionalJdkServer}) is a child JVM ({@link ChildServer}) on an H2 database this JVM
 * serves over TCP, and a crash is {@code kill -9} of that child once it reached the crash point;
 * the database sees its connection die, and a new child takes over.
 */
class JdkTransactionalKillTest extends AbstractTransactionalHttpContract {
    private static Server database;
    private static String url;
    private static Jdbi jdbi;
    private static ChildServer child;

    @BeforeAll
    static void start() throws Exception {
        JdbcDataSource local = new JdbcDataSource();
        local.setURL("jdbc:h2:mem:jdk-tx-kill;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        TransactionalApp.createTables(local);
        jdbi = Jdbi.create(local);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        database = Server.createTcpServer("-tcpPort", Integer.toString(port)).start();
        url = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:jdk-tx-kill;LOCK_TIMEOUT=10000";
        child = ChildServer.launch("jdk-tx-server", TransactionalJdkServer.class, url);
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (child != null) {
            child.kill();
        }
        database.stop();
    }

    @Override
    Http http() {
        return child.http();
    }

    @Override
    int effects(String key) {
        return TransactionalApp.effects(jdbi, key);
    }

    @Override
    void awaitCrashAndRestart() throws Exception {
        child.awaitCrash();
        child.kill();
        child = ChildServer.launch("jdk-tx-server", TransactionalJdkServer.class, url);
    }
}
