package dev.idem.store.jdbc;

import dev.idem.api.IdempotencyKey;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** The business table of the transactional-mode tests: one row per charge actually made. */
final class Charges {
    private final Jdbi jdbi;

    Charges(DataSource dataSource) {
        this.jdbi = Jdbi.create(dataSource);
        jdbi.useHandle(h -> h.execute("CREATE TABLE IF NOT EXISTS charges (id VARCHAR(64) NOT NULL PRIMARY KEY,"
                + " request_key VARCHAR(255) NOT NULL, amount INT NOT NULL, worker VARCHAR(64) NOT NULL)"));
    }

    /** A charge as the business code returns it (and the engine replays it). */
    record Charge(String id, int amount, String worker) {
    }

    /** Inserts a charge for {@code key} on the caller's transaction handle. */
    static Charge insert(Handle h, IdempotencyKey key, int amount, String worker) {
        String id = UUID.randomUUID().toString();
        h.createUpdate("INSERT INTO charges (id, request_key, amount, worker) VALUES (:id, :rk, :amount, :worker)")
                .bind("id", id).bind("rk", rowKey(key)).bind("amount", amount).bind("worker", worker).execute();
        return new Charge(id, amount, worker);
    }

    /** How many committed charges exist for {@code key}. */
    int count(IdempotencyKey key) {
        return jdbi.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM charges WHERE request_key = :rk")
                .bind("rk", rowKey(key)).mapTo(Integer.class).one());
    }

    /** The workers whose charges for {@code key} were committed. */
    java.util.List<String> workers(IdempotencyKey key) {
        return jdbi.withHandle(h -> h.createQuery("SELECT worker FROM charges WHERE request_key = :rk")
                .bind("rk", rowKey(key)).mapTo(String.class).list());
    }

    private static String rowKey(IdempotencyKey key) {
        return key.scope() + "|" + key.key();
    }
}
