package dev.idem.benchmarks;

/** The small result every benchmarked work returns (about 70 bytes as JSON). */
public record Receipt(String id, long amountCents, String status) {
    /** The one instance the works return, so the work itself costs nothing measurable. */
    public static final Receipt OK = new Receipt("ch_3PZx8f2eZvKYlo2C0a1b2c3d", 4_250, "succeeded");
}
