package dev.idem.examples.quarkus;

/**
 * A charge as stored and answered.
 *
 * @param id the charge's id
 * @param customer the customer charged
 * @param amountCents the amount, in cents
 * @param reference the client's reference
 */
public record Charge(String id, String customer, long amountCents, String reference) {
}
