package dev.idem.outbox.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections run a hook around {@link Connection#commit()}: the
 * relay's process "dies" inside the commit, before the commit reached the database (it rolls
 * back) or after (it took effect, but the relay never learns it).
 */
final class CrashingDataSource {
    /** Runs around each commit; {@code before} and {@code after} may throw to stand for a crash. */
    interface CommitHook {
        void before();

        void after();
    }

    private CrashingDataSource() {
    }

    static DataSource wrap(DataSource target, CommitHook hook) {
        return (DataSource) Proxy.newProxyInstance(CrashingDataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
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
