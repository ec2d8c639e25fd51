/**
 * JMH benchmarks of idem: the request fingerprint against SHA-256 and a Jackson round trip,
 * the engine on every store against a raw baseline on the same client, contention on one
 * key and on distinct keys, and a round-trip count per operation ({@link
 * dev.idem.benchmarks.RoundTrips}). Run them with {@code benchmarks/run}; see the module README.
 */
package dev.idem.benchmarks;
