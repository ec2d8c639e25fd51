package dev.idem.engine.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 over the operation and the canonical request. Requests may be JSON text
 * ({@code String}), raw bytes ({@code byte[]}, hashed as they are, under a different domain
 * tag so they never equal a JSON request), or anything the ObjectMapper can write (POJOs,
 * Maps, JsonNode), which is written and then canonicalized like text.
 */
public final class Fingerprinter {
    private static final byte[] DOMAIN = "idem-fingerprint/v1\0".getBytes(StandardCharsets.US_ASCII);

    private final ObjectMapper mapper;
    private final int maxRequestBytes;
    private final PointerSet excluded;

    /** Creates a fingerprinter; {@code excluded} applies to every request. */
    public Fingerprinter(ObjectMapper mapper, int maxRequestBytes, PointerSet excluded) {
        this.mapper = mapper;
        this.maxRequestBytes = maxRequestBytes;
        this.excluded = excluded;
    }

    /** The fingerprint of {@code request} for {@code operation}, with extra exclusions for this call. */
    public byte[] fingerprint(String operation, Object request, PointerSet extraExcluded) {
        PointerSet pointers = excluded.plus(extraExcluded);
        MessageDigest sha = sha256();
        sha.update(DOMAIN);
        sha.update(operation.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        if (request instanceof byte[]) {
            byte[] raw = (byte[]) request;
            checkSize(raw.length);
            sha.update((byte) 'B');
            sha.update(raw);
        } else if (request instanceof String) {
            String text = (String) request;
            checkSize(text.length());
            sha.update((byte) 'J');
            JsonCanonicalizer.digest(text, pointers, sha);
        } else {
            byte[] json;
            try {
                json = mapper.writeValueAsBytes(request);
            } catch (JsonProcessingException e) {
                throw new InvalidRequestException(
                        "request of type " + request.getClass().getName() + " cannot be written as JSON: "
                                + e.getOriginalMessage(), false, e);
            }
            checkSize(json.length);
            sha.update((byte) 'J');
            JsonCanonicalizer.digest(json, pointers, sha);
        }
        return sha.digest();
    }

    private void checkSize(int size) {
        if (size > maxRequestBytes) {
            throw new InvalidRequestException(
                    "request is " + size + " bytes; the limit is " + maxRequestBytes, true, null);
        }
    }

    private static final MessageDigest PROTOTYPE = newSha256();

    /** A fresh SHA-256 digest (cloned from a prototype: a provider lookup per call is slow). */
    public static MessageDigest sha256() {
        try {
            return (MessageDigest) PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            return newSha256();
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }
}
