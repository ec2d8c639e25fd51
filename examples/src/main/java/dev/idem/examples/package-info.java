/**
 * A runnable demonstration of exactly-once effect: {@link dev.idem.examples.PaymentsDemo}
 * starts a payments service with idem-http and store-jdbc, a fault-injecting proxy, and an
 * idem-client driver, then audits the ledger. Not a library; nothing here is API.
 */
package dev.idem.examples;
