/**
 * The store test kit. An adapter's tests extend {@link dev.idem.store.tck.IdempotencyStoreContract}
 * (JUnit 5: the single-operation contract, exact lease and expiry boundaries, lockstep races on
 * one key and linearizability of concurrent histories) and
 * {@link dev.idem.store.tck.IdempotencyStoreProperties} (jqwik: the stateful model test), and say
 * through a {@link dev.idem.store.tck.StoreFixture} how to build the store and how to let time pass
 * on its clock. The module's README explains what each part proves.
 */
package dev.idem.store.tck;
