package dev.idem.engine;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.internal.Fingerprinter;
import dev.idem.engine.internal.OutcomeCodec;
import dev.idem.engine.internal.Sealer;
import dev.idem.engine.internal.json.PointerSet;
import dev.idem.engine.protection.KeyProvider;
import org.jspecify.annotations.Nullable;

/**
 * The fields of a record as an engine with default settings writes them, one piece at a time: the
 * request's fingerprint, the outcome's bytes and their encryption. For benchmarks and diagnostics
 * that measure or inspect what a call costs apart from the store (the benchmarks module uses it);
 * an application calls {@link IdempotencyEngine}, which does all of this itself.
 *
 * <p>The bytes are exactly what the engine stores: a fingerprint taken here equals the one an
 * engine built with the same mapper records for the same operation and request, an outcome
 * encoded here is replayed by such an engine. Instances are immutable and thread-safe.
 */
public final class RecordFormat {
    private static final int MAX_REQUEST_BYTES = 1024 * 1024;

    private final Fingerprinter fingerprinter;
    private final OutcomeCodec codec;
    private final Sealer sealer;

    private RecordFormat(Fingerprinter fingerprinter, OutcomeCodec codec, Sealer sealer) {
        this.fingerprinter = fingerprinter;
        this.codec = codec;
        this.sealer = sealer;
    }

    /**
     * The format of an engine whose results and object requests are written with {@code mapper}.
     *
     * @param mapper the engine's mapper
     * @return the format
     */
    public static RecordFormat of(ObjectMapper mapper) {
        return new RecordFormat(new Fingerprinter(mapper, MAX_REQUEST_BYTES, PointerSet.EMPTY),
                new OutcomeCodec(mapper), Sealer.NONE);
    }

    /**
     * The format of an engine built with {@code jsonCodec(json)}.
     *
     * @param json the engine's codec
     * @return the format
     */
    public static RecordFormat of(JsonCodec json) {
        return new RecordFormat(new Fingerprinter(json, MAX_REQUEST_BYTES, PointerSet.EMPTY),
                new OutcomeCodec(json), Sealer.NONE);
    }

    /**
     * This format with outcomes encrypted under {@code keys}, as an engine built with
     * {@code encryptOutcomes(keys)} stores them; null turns encryption off.
     *
     * @param keys the outcome keys, or null
     * @return the format
     */
    public RecordFormat withOutcomeKeys(@Nullable KeyProvider keys) {
        return new RecordFormat(fingerprinter, codec, keys == null ? Sealer.NONE : new Sealer(keys, false));
    }

    /**
     * The plain (SHA-256) fingerprint of {@code request} for {@code operation}.
     *
     * @param operation the key's operation
     * @param request the request: JSON text, bytes, or an object written with the format's mapper
     * @return the fingerprint the engine records
     */
    public byte[] fingerprint(String operation, Object request) {
        return fingerprinter.fingerprint(operation, request, PointerSet.EMPTY);
    }

    /**
     * The stored outcome of a work that returned {@code value} (before encryption).
     *
     * @param value the work's result
     * @return the outcome bytes
     */
    public byte[] encodeSuccess(Object value) {
        return codec.encodeSuccess(value);
    }

    /**
     * The value a replay of {@code outcome} (a success, before encryption) reads as {@code type}.
     *
     * @param outcome a success outcome
     * @param type the result type, from {@link #type}
     * @return the value
     */
    public Object decodeSuccess(byte[] outcome, JavaType type) {
        return codec.decodeSuccess(outcome, type);
    }

    /**
     * {@code type} as this format's mapper sees it, built once for {@link #decodeSuccess}.
     *
     * @param type the result class
     * @return its Jackson type
     */
    public JavaType type(Class<?> type) {
        return codec.mapper().constructType(type);
    }

    /**
     * {@code outcome} encrypted for the record of {@code key}; itself when encryption is off.
     *
     * @param key the record's key
     * @param fingerprint the record's fingerprint (bound into the ciphertext)
     * @param outcome the plain outcome
     * @return the stored bytes
     */
    public byte[] sealOutcome(IdempotencyKey key, byte[] fingerprint, byte[] outcome) {
        return sealer.seal(Sealer.Part.OUTCOME, key, fingerprint, outcome);
    }

    /**
     * The plain outcome of a sealed one, as {@link #sealOutcome} wrote it.
     *
     * @param key the record's key
     * @param fingerprint the record's fingerprint
     * @param sealed the stored bytes
     * @return the plain outcome
     */
    public byte[] openOutcome(IdempotencyKey key, byte[] fingerprint, byte[] sealed) {
        return sealer.open(Sealer.Part.OUTCOME, key, fingerprint, sealed);
    }
}
