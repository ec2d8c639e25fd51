package dev.idem.testsupport.h2;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/**
 * H2 in memory (declare {@code com.h2database:h2}): a named database that lives as long as the
 * JVM ({@code DB_CLOSE_DELAY=-1}), so every data source on the same name sees the same tables,
 * with a lock wait of 10 s instead of H2's 1 s for a loaded machine.
 */
public final class InMemoryH2 {
    /** The user of every data source here. */
    public static final String USER = "sa";

    private InMemoryH2() {
    }

    /**
     * The JDBC URL of in-memory database {@code name}.
     *
     * @param name the database's name
     * @return the URL
     */
    public static String jdbcUrl(String name) {
        return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
    }

    /**
     * A data source on in-memory database {@code name}; one connection per call, no pool.
     *
     * @param name the database's name
     * @return the data source
     */
    public static DataSource dataSource(String name) {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL(jdbcUrl(name));
        ds.setUser(USER);
        return ds;
    }
}
