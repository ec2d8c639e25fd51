package dev.idem.outbox.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections run a hook around {@link Connection#commit()}: the
 * relay's process "dies" inside the commit, before the commit reached the database (it rolls
 * back) or after (it took effect, but the relay never learns it); or, with a thrown
 * {@link SQLException}, a commit whose answer was lost on a connection that broke. The database
 * can also be made to refuse new connections.
 */
final class CrashingDataSource {
    /**
     * Runs around each commit; {@code before} and {@code after} may throw an {@link Error} to stand
     * for a crash, or an {@link SQLException} for a connection that broke before or after the
     * commit reached the database.
     */
    interface CommitHook {
        void before() throws SQLException;

        void after() throws SQLException;
    }

    private CrashingDataSource() {
    }

    static DataSource wrap(DataSource target, CommitHook hook) {
        return wrap(target, hook, () -> false);
    }

    /** Like {@link #wrap(DataSource, CommitHook)}; while {@code down} says so, new connections are refused. */
    static DataSource wrap(DataSource target, CommitHook hook, BooleanSupplier down) {
        return (DataSource) Proxy.newProxyInstance(CrashingDataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && down.getAsBoolean()) {
                        throw new SQLTransientConnectionException("the database is unreachable");
                    }
                    Object result = invoke(target, method, args);
                    return result instanceof Connection ? connection((Connection) result, hook) : result;
                });
    }

    private static Connection connection(Connection target, CommitHook hook) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().equals("commit") && method.getParameterCount() == 0) {
                hook.before();
                target.commit();
                hook.after();
                return null;
            }
            return invoke(target, method, args);
        };
        return (Connection) Proxy.newProxyInstance(CrashingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, handler);
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
