package dev.idem.testsupport.dynamodb;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import dev.idem.testsupport.FreePorts;
import java.net.URI;

/**
 * DynamoDB Local in this JVM (declare {@code com.amazonaws:DynamoDBLocal}), in memory, on a free
 * loopback port, spoken to over HTTP by ordinary SDK clients, so what a test measures (requests,
 * errors) is what a real deployment sees. {@link #shared()} is started once per JVM and stopped
 * when it exits; {@link #start()} gives a caller a server of its own to {@link #close()}.
 */
public final class DynamoDbLocalServer implements AutoCloseable {
    private final DynamoDBProxyServer server;
    private final URI endpoint;

    private DynamoDbLocalServer(DynamoDBProxyServer server, URI endpoint) {
        this.server = server;
        this.endpoint = endpoint;
    }

    /**
     * The server shared by every test in this JVM.
     *
     * @return the started server; do not close it
     */
    public static DynamoDbLocalServer shared() {
        return Shared.SERVER;
    }

    /**
     * Starts a server of the caller's own.
     *
     * @return the started server; the caller closes it
     */
    public static DynamoDbLocalServer start() {
        int port = FreePorts.next();
        try {
            DynamoDBProxyServer server = ServerRunner.createServerFromCommandLineArgs(
                    new String[] {"-inMemory", "-port", Integer.toString(port), "-disableTelemetry"});
            server.start();
            return new DynamoDbLocalServer(server, URI.create("http://127.0.0.1:" + port));
        } catch (Exception e) {
            throw new IllegalStateException("could not start DynamoDB Local", e);
        }
    }

    /**
     * Where SDK clients reach it ({@code endpointOverride}); any region and credentials do.
     *
     * @return the endpoint
     */
    public URI endpoint() {
        return endpoint;
    }

    /**
     * Stops the server and its background jobs, which would otherwise keep the JVM alive.
     */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            // Stopping at the end: nothing left to clean up.
        }
        stopJobs();
    }

    /**
     * DynamoDB Local's background jobs (shard rollover) run on a non-daemon pool that its
     * {@code stop()} leaves sleeping forever; interrupting them ends them.
     */
    private static void stopJobs() {
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            for (StackTraceElement frame : stack) {
                if (frame.getClassName().startsWith("com.amazonaws.services.dynamodbv2.local.shared.jobs.")) {
                    thread.interrupt();
                    return;
                }
            }
        });
    }

    private static final class Shared {
        static final DynamoDbLocalServer SERVER = start();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(SERVER::close, "stop-dynamodb-local"));
        }
    }
}
