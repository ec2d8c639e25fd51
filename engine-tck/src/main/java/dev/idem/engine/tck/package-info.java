/**
 * The engine test kit: scenarios that run the engine over a real store, which every store
 * adapter inherits with a short subclass (for example {@link dev.idem.engine.tck.StepSagaContract}).
 * It builds on {@link dev.idem.store.tck.StoreFixture} from the store test kit, so an adapter
 * reuses the fixture it already has.
 */
package dev.idem.engine.tck;
