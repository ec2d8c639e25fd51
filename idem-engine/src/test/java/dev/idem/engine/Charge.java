package dev.idem.engine;

import java.math.BigDecimal;
import java.util.Objects;

/** A result type with a constructor-bound, immutable shape, like users' own. */
public final class Charge {
    private final String id;
    private final BigDecimal amount;
    private final String currency;

    @com.fasterxml.jackson.annotation.JsonCreator
    public Charge(@com.fasterxml.jackson.annotation.JsonProperty("id") String id,
            @com.fasterxml.jackson.annotation.JsonProperty("amount") BigDecimal amount,
            @com.fasterxml.jackson.annotation.JsonProperty("currency") String currency) {
        this.id = id;
        this.amount = amount;
        this.currency = currency;
    }

    public String getId() {
        return id;
    }

    public BigDecimal getAmount() {
        return amount;
    }

    public String getCurrency() {
        return currency;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Charge && ((Charge) o).id.equals(id) && ((Charge) o).amount.equals(amount)
                && ((Charge) o).currency.equals(currency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, amount, currency);
    }

    @Override
    public String toString() {
        return "Charge[" + id + ", " + amount + " " + currency + "]";
    }
}
