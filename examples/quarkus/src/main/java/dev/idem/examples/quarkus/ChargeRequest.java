package dev.idem.examples.quarkus;

/**
 * What a client asks to charge. The customer is whatever the client says: never a scope.
 *
 * @param customer the customer to charge
 * @param amountCents the amount, in cents
 * @param reference the client's own reference
 */
public record ChargeRequest(String customer, long amountCents, String reference) {
}
