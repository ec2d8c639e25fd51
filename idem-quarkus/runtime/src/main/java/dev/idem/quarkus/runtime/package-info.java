/**
 * The extension's beans, registered by its deployment module as the application's classes
 * allow: not API. Applications configure {@code idem.*} and replace beans by type.
 */
package dev.idem.quarkus.runtime;
