package dev.idem.store.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource over one physical connection that records every JDBC call that may send
 * something to the server: statement executions (with their SQL), commits, rollbacks,
 * savepoints and changes of auto-commit, isolation, read-only, catalog or schema. Getters,
 * statement preparation (client-side in both drivers' default settings) and the network
 * timeout (a socket setting in both drivers: nothing is sent) are not recorded. {@code close()} on the handed-out connection is a no-op, so every operation
 * runs on the same physical connection and a server-side counter of that session can
 * cross-check the count.
 */
final class WireCounter {
    private static final Set<String> CONNECTION_CALLS = Set.of("commit", "rollback", "setAutoCommit",
            "setTransactionIsolation", "setSavepoint", "releaseSavepoint", "setReadOnly", "setCatalog", "setSchema",
            "abort", "isValid");

    private final Connection physical;
    private final List<String> calls = new ArrayList<>();

    WireCounter(Connection physical) {
        this.physical = physical;
    }

    /** The calls recorded since the last {@link #reset()}. */
    synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    synchronized void reset() {
        calls.clear();
    }

    private synchronized void record(String call) {
        calls.add(call);
    }

    DataSource dataSource() {
        Connection connection = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {Connection.class}, new ConnectionHandler());
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "getConnection": return connection;
                        case "getLogWriter": return (PrintWriter) null;
                        case "getLoginTimeout": return 0;
                        case "getParentLogger": return Logger.getGlobal();
                        case "isWrapperFor": return false;
                        case "toString": return "WireCounter";
                        case "hashCode": return System.identityHashCode(proxy);
                        case "equals": return proxy == args[0];
                        default: throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private final class ConnectionHandler implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.equals("close")) {
                return null;
            }
            if (name.equals("isClosed")) {
                return physical.isClosed();
            }
            if (CONNECTION_CALLS.contains(name)) {
                record("Connection." + name + (args == null || args.length == 0 ? "()" : "(" + args[0] + ")"));
            }
            Object result = WireCounter.invoke(physical, method, args);
            if (result instanceof Statement) {
                String sql = args != null && args.length > 0 && args[0] instanceof String ? (String) args[0] : null;
                Class<?> type = result instanceof CallableStatement ? CallableStatement.class
                        : result instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type},
                        new StatementHandler(result, sql));
            }
            return result;
        }
    }

    private final class StatementHandler implements InvocationHandler {
        private final Object target;
        private final String preparedSql;

        StatementHandler(Object target, String preparedSql) {
            this.target = target;
            this.preparedSql = preparedSql;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.startsWith("execute")) {
                String sql = args != null && args.length > 0 && args[0] instanceof String ? (String) args[0]
                        : preparedSql;
                record(name + ": " + sql);
            }
            return WireCounter.invoke(target, method, args);
        }
    }
}
