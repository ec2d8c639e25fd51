/**
 * RFC 8785 canonical JSON, streamed: {@link dev.idem.engine.internal.json.JsonCanonicalizer}
 * reads a document once onto a {@link dev.idem.engine.internal.json.CanonicalTape} (tokens
 * rewritten canonically, numbers through {@link dev.idem.engine.internal.json.Es6Numbers},
 * strings through {@link dev.idem.engine.internal.json.Utf8}), the
 * {@link dev.idem.engine.internal.json.ContainerTable} puts members in order and drops excluded
 * ones ({@link dev.idem.engine.internal.json.PointerSet}), and the result lands in a
 * {@link dev.idem.engine.internal.json.ByteSink}. Jackson 2 writes object requests exactly
 * ({@link dev.idem.engine.internal.json.ExactJsonWriter}). Not an API: the engine's fingerprint
 * and {@code CanonicalJson} are built on it.
 */
package dev.idem.engine.internal.json;
