/**
 * The embedded in-memory store: records live in this JVM only, so it deduplicates
 * within one process (tests, single-node services, local development).
 */
package dev.idem.store.memory;
