package dev.idem.examples;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The payments ledger: one row per charge and per refund, per merchant. It has no unique
 * constraint on the client's reference on purpose, so any duplicate execution would show up
 * as a second row; preventing it is idem's job.
 */
public final class Ledger {
    /** A stored charge. */
    public record Charge(String id, String reference, String customer, long amountCents, String currency) {
    }

    private final DataSource dataSource;

    /** A ledger in {@code dataSource}; call {@link #createTables()} once. */
    public Ledger(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Creates the tables if missing (H2 and PostgreSQL). */
    public Ledger createTables() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS demo_charge (id VARCHAR(40) PRIMARY KEY, merchant VARCHAR(200) NOT NULL,"
                    + " reference VARCHAR(100) NOT NULL, customer VARCHAR(100) NOT NULL, amount_cents BIGINT NOT NULL,"
                    + " currency VARCHAR(3) NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS demo_refund (id VARCHAR(40) PRIMARY KEY, merchant VARCHAR(200) NOT NULL,"
                    + " reference VARCHAR(100) NOT NULL, charge_id VARCHAR(40) NOT NULL, amount_cents BIGINT NOT NULL)");
        }
        return this;
    }

    /** Inserts a charge. */
    public void insertCharge(String merchant, Charge charge) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO demo_charge (id, merchant, reference, customer,"
                        + " amount_cents, currency) VALUES (?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, charge.id());
            ps.setString(2, merchant);
            ps.setString(3, charge.reference());
            ps.setString(4, charge.customer());
            ps.setLong(5, charge.amountCents());
            ps.setString(6, charge.currency());
            ps.executeUpdate();
        }
    }

    /** The charge {@code id} of {@code merchant}, if any. */
    public Optional<Charge> findCharge(String merchant, String id) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT id, reference, customer, amount_cents, currency"
                        + " FROM demo_charge WHERE merchant = ? AND id = ?")) {
            ps.setString(1, merchant);
            ps.setString(2, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new Charge(rs.getString(1), rs.getString(2), rs.getString(3),
                        rs.getLong(4), rs.getString(5))) : Optional.empty();
            }
        }
    }

    /** The total refunded on a charge. */
    public long refunded(String merchant, String chargeId) throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COALESCE(SUM(amount_cents), 0) FROM demo_refund"
                        + " WHERE merchant = ? AND charge_id = ?")) {
            ps.setString(1, merchant);
            ps.setString(2, chargeId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Inserts a refund. */
    public void insertRefund(String merchant, String id, String reference, String chargeId, long amountCents)
            throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO demo_refund (id, merchant, reference, charge_id,"
                        + " amount_cents) VALUES (?, ?, ?, ?, ?)")) {
            ps.setString(1, id);
            ps.setString(2, merchant);
            ps.setString(3, reference);
            ps.setString(4, chargeId);
            ps.setLong(5, amountCents);
            ps.executeUpdate();
        }
    }

    /** Charge ids by reference, for the audit: reference -> ids in the ledger. */
    public Map<String, java.util.List<String>> chargesByReference(String merchant) throws SQLException {
        return byReference("SELECT reference, id FROM demo_charge WHERE merchant = ?", merchant);
    }

    /** Refund ids by reference, for the audit. */
    public Map<String, java.util.List<String>> refundsByReference(String merchant) throws SQLException {
        return byReference("SELECT reference, id FROM demo_refund WHERE merchant = ?", merchant);
    }

    private Map<String, java.util.List<String>> byReference(String sql, String merchant) throws SQLException {
        Map<String, java.util.List<String>> out = new HashMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, merchant);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(rs.getString(1), k -> new java.util.ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        return out;
    }
}
