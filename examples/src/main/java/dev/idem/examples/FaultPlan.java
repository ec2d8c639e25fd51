package dev.idem.examples;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;

/**
 * Which fault hits which request: a pure function of the seed, the request's idempotency key
 * and its attempt number for that key, so the same seed gives the same faults however the
 * threads interleave.
 */
public final class FaultPlan {
    /** What the proxy does with one request. */
    public enum Fault {
        /** Forward and return the answer. */
        NONE,
        /** Hold the request, then forward it. */
        DELAY,
        /** Forward, then close the client's connection without an answer (the server did the work). */
        DROP_RESPONSE,
        /** Forward, then answer 502 instead of the server's answer (the server did the work). */
        BAD_GATEWAY,
        /** Answer 503 without forwarding. */
        UNAVAILABLE,
        /** Forward twice at the same time and return the first copy's answer. */
        DUPLICATE
    }

    private final long seed;
    private final double[] thresholds;
    private final int faultyAttempts;

    /** The plan of {@code settings}. */
    public FaultPlan(DemoSettings settings) {
        this.seed = settings.seed();
        this.faultyAttempts = settings.faultyAttempts();
        double drop = settings.dropRate();
        double bad = drop + settings.badGatewayRate();
        double unavailable = bad + settings.unavailableRate();
        double duplicate = unavailable + settings.duplicateRate();
        double delay = duplicate + settings.delayRate();
        this.thresholds = new double[] {drop, bad, unavailable, duplicate, delay};
    }

    /** The fault for attempt {@code attempt} (1-based) of {@code key}. */
    public Fault fault(String key, int attempt) {
        if (attempt > faultyAttempts) {
            return Fault.NONE;
        }
        double u = uniform(key, attempt, 0);
        if (u < thresholds[0]) {
            return Fault.DROP_RESPONSE;
        }
        if (u < thresholds[1]) {
            return Fault.BAD_GATEWAY;
        }
        if (u < thresholds[2]) {
            return Fault.UNAVAILABLE;
        }
        if (u < thresholds[3]) {
            return Fault.DUPLICATE;
        }
        if (u < thresholds[4]) {
            return Fault.DELAY;
        }
        return Fault.NONE;
    }

    /** How long a {@link Fault#DELAY} holds attempt {@code attempt} of {@code key}: 200..1500 ms. */
    public Duration delay(String key, int attempt) {
        return Duration.ofMillis(200 + (long) (uniform(key, attempt, 1) * 1300));
    }

    private double uniform(String key, int attempt, int stream) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
        sha.update(ByteBuffer.allocate(16).putLong(seed).putInt(attempt).putInt(stream).array());
        sha.update(key.getBytes(StandardCharsets.UTF_8));
        long bits = ByteBuffer.wrap(sha.digest()).getLong() >>> 11;
        return bits / (double) (1L << 53);
    }
}
