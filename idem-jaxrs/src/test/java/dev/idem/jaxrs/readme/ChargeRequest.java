package dev.idem.jaxrs.readme;

/** The README resource's request body. */
public record ChargeRequest(int amount) {
}
