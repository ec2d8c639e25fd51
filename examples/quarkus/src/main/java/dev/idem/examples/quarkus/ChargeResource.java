package dev.idem.examples.quarkus;

import dev.idem.jaxrs.Idempotent;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code POST /charges}, covered by idem ({@code @Idempotent}): a retry with the same
 * Idempotency-Key replays the first answer instead of charging the card again; the same key with
 * another body is a 422; a retry while the first call still runs is a 409. {@code GET /charges}
 * lists what was charged.
 */
@Path("/charges")
public class ChargeResource {
    @Inject
    AgroalDataSource db;

    @Inject
    PaymentProvider provider;

    void createTable(@Observes StartupEvent event) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS charge (id VARCHAR(40) PRIMARY KEY, customer VARCHAR(100),"
                    + " amount_cents BIGINT, reference VARCHAR(100))");
        }
    }

    /**
     * Charges once per Idempotency-Key.
     *
     * @param request what to charge
     * @return 201 with the charge
     * @throws SQLException if the charge cannot be recorded
     */
    @POST
    @Idempotent
    public Response charge(ChargeRequest request) throws SQLException {
        if (request == null || request.customer() == null || request.amountCents() <= 0) {
            throw new BadRequestException("a charge needs a customer and a positive amountCents");
        }
        Charge charge = new Charge(provider.charge(request), request.customer(), request.amountCents(),
                request.reference());
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO charge (id, customer, amount_cents, reference) VALUES (?, ?, ?, ?)")) {
            s.setString(1, charge.id());
            s.setString(2, charge.customer());
            s.setLong(3, charge.amountCents());
            s.setString(4, charge.reference());
            s.executeUpdate();
        }
        return Response.created(URI.create("/charges/" + charge.id())).entity(charge).build();
    }

    /**
     * Every charge made.
     *
     * @return the charges
     * @throws SQLException if they cannot be read
     */
    @GET
    public List<Charge> list() throws SQLException {
        List<Charge> charges = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT id, customer, amount_cents, reference FROM charge ORDER BY id")) {
            while (r.next()) {
                charges.add(new Charge(r.getString(1), r.getString(2), r.getLong(3), r.getString(4)));
            }
        }
        return charges;
    }
}
