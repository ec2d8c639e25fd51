/**
 * The engine's JSON through Jackson 3: {@link dev.idem.jackson3.Jackson3JsonCodec}, a
 * {@link dev.idem.engine.JsonCodec} over the application's {@code JsonMapper}.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.jackson3;
