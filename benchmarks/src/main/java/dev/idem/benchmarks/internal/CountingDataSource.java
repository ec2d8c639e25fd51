package dev.idem.benchmarks.internal;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource whose connections count the calls that carry SQL work to the database:
 * every statement execution and every commit or rollback. It sits under the pool, so it
 * sees what the driver is asked to do, whoever asks. Session-setting calls
 * ({@code setAutoCommit}, {@code setTransactionIsolation}) are not counted: PostgreSQL's
 * driver folds BEGIN into the next statement, and the others cache the setting, so whether
 * they cost a trip depends on the driver; the README says so.
 */
final class CountingDataSource implements DataSource, TripCounter {
    private final DataSource delegate;
    private final AtomicLong trips = new AtomicLong();

    CountingDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    @Override
    public long total() {
        return trips.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(delegate.getConnection(username, password));
    }

    private Connection wrap(Connection c) {
        InvocationHandler h = (proxy, m, args) -> {
            String name = m.getName();
            if (name.equals("commit") || name.equals("rollback")) {
                trips.incrementAndGet();
            }
            Object result = call(c, m, args);
            if (result instanceof CallableStatement) {
                return statement((Statement) result, CallableStatement.class);
            }
            if (result instanceof PreparedStatement) {
                return statement((Statement) result, PreparedStatement.class);
            }
            if (result instanceof Statement) {
                return statement((Statement) result, Statement.class);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, h);
    }

    private Object statement(Statement s, Class<? extends Statement> type) {
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().startsWith("execute")) {
                trips.incrementAndGet();
            }
            return call(s, m, args);
        };
        return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {type}, h);
    }

    private static Object call(Object target, Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return delegate.isWrapperFor(iface);
    }
}
