/**
 * Implementation detail of the benchmarks: embedded servers, the raw baselines, round-trip
 * counters and the latency histogram. Not an API.
 */
package dev.idem.benchmarks.internal;
