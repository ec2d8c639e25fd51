package dev.idem.jaxrs.readme;

/** A charge, as the README's resource returns it. */
public record Charge(String id, int amount) {
}
