/**
 * The store test kit. An adapter's tests extend {@link dev.idem.store.tck.IdempotencyStoreContract}
 * (JUnit 5) and {@link dev.idem.store.tck.IdempotencyStoreProperties} (jqwik) and say how
 * to build the store and how to let time pass on its clock.
 */
package dev.idem.store.tck;
