package dev.idem.store.hybrid;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Random;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * A DataSource over a real one that counts the statements executed through it (every
 * {@code execute*} call of a statement), so a test can tell whether a call touched the
 * database at all; optionally it also runs a hook just before (true) and just after (false) each
 * statement (to pause there, see {@link #jittery}).
 */
final class StatementCounter {
    private final DataSource target;
    private final Consumer<Boolean> aroundEach;
    private final AtomicLong executed = new AtomicLong();

    StatementCounter(DataSource target) {
        this(target, before -> { });
    }

    private StatementCounter(DataSource target, Consumer<Boolean> aroundEach) {
        this.target = target;
        this.aroundEach = aroundEach;
    }

    /**
     * {@code target} with seeded pauses, as a busy network or database would add: up to 1 ms before a
     * quarter of its statements and up to 4 ms after an eighth of them (about 0.4 ms a statement on
     * average). The gate's and the database's steps of concurrent calls then interleave in many more
     * ways than on an idle loopback.
     */
    static DataSource jittery(DataSource target, long seed) {
        Random random = new Random(seed);
        return new StatementCounter(target, before -> {
            int micros = before ? random.nextInt(4 * 1000) : random.nextInt(8 * 4000);
            if (micros < (before ? 1000 : 4000)) {
                LockSupport.parkNanos(micros * 1000L);
            }
        }).dataSource();
    }

    long executed() {
        return executed.get();
    }

    /** Waits (bounded) until at least {@code n} statements were executed in all. */
    boolean awaitExecuted(long n, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        synchronized (executed) {
            while (executed.get() < n) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                executed.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection ? connection((Connection) result) : result;
                });
    }

    private Connection connection(Connection physical) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = invoke(physical, method, args);
                    if (result instanceof Statement) {
                        Class<?> type = result instanceof CallableStatement ? CallableStatement.class
                                : result instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type},
                                counting(result));
                    }
                    return result;
                });
    }

    private InvocationHandler counting(Object statement) {
        return (proxy, method, args) -> {
            boolean execute = method.getName().startsWith("execute");
            if (execute) {
                aroundEach.accept(true);
            }
            try {
                return invoke(statement, method, args);
            } finally {
                if (execute) {
                    aroundEach.accept(false);
                    synchronized (executed) {
                        executed.incrementAndGet();
                        executed.notifyAll();
                    }
                }
            }
        };
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
