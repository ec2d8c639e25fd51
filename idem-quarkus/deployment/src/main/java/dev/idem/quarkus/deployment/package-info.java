/** The build steps of idem's Quarkus extension; applications depend on {@code idem-quarkus}, never on this. */
package dev.idem.quarkus.deployment;
