package dev.idem.examples.spring;

import dev.idem.spring.Idempotent;
import java.util.List;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * Charges customers; each charge row commits together with its idempotency record. The records
 * are scoped by the caller (the API key the filter checked), never by anything in the body: a
 * body field is whatever the client says it is, so scoping by it would let one caller replay
 * another's charge.
 */
@Service
public class ChargeService {
    private final JdbcTemplate jdbc;

    /**
     * Creates the service.
     *
     * @param jdbc the template over the application's DataSource
     */
    public ChargeService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        jdbc.execute("create table if not exists charge (id varchar(64) primary key, customer varchar(64), "
                + "amount_cents bigint, reference varchar(64))");
    }

    /**
     * Charges once per reference and caller; a retry returns the first charge without writing
     * again. No {@code scope}: the caller's principal, as for the filter.
     *
     * @param request the charge
     * @return the stored charge
     */
    @Idempotent(operation = "charge", key = "#request.reference", transactional = true)
    public Charge charge(ChargeRequest request) {
        if (request.amountCents() <= 0) {
            throw new IllegalArgumentException("amountCents must be positive");
        }
        Charge charge = new Charge("ch_" + UUID.randomUUID(), request.customer(), request.amountCents(),
                request.reference());
        jdbc.update("insert into charge(id, customer, amount_cents, reference) values (?, ?, ?, ?)", charge.id(),
                charge.customer(), charge.amountCents(), charge.reference());
        return charge;
    }

    /**
     * Every charge row.
     *
     * @return the charges
     */
    public List<Charge> all() {
        return jdbc.query("select id, customer, amount_cents, reference from charge order by id",
                (rs, i) -> new Charge(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4)));
    }

    /**
     * A charge request.
     *
     * @param customer who pays
     * @param amountCents how much
     * @param reference the caller's reference, unique per intent
     */
    public record ChargeRequest(String customer, long amountCents, String reference) {
    }

    /**
     * A stored charge.
     *
     * @param id the charge id
     * @param customer who paid
     * @param amountCents how much
     * @param reference the caller's reference
     */
    public record Charge(String id, String customer, long amountCents, String reference) {
    }
}
