package dev.idem.engine.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidRequestException;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.engine.OutcomeUnreadableException.Reason;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.engine.JsonCodec;
import dev.idem.engine.RequestSerializationException;
import org.jspecify.annotations.Nullable;
import dev.idem.engine.internal.json.Jackson2JsonCodec;
import dev.idem.engine.internal.json.JsonCanonicalizer;
import dev.idem.engine.internal.json.PointerSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 over the operation and the canonical request (or, keyed, HMAC-SHA-256 under a
 * versioned secret: {@code 'K' 0x01}, the secret id's length and id, then the 32-byte MAC; a
 * plain fingerprint is the 32-byte digest alone, so the two never meet). Requests may be JSON text
 * ({@code String}, its size counted in UTF-8 bytes; text that is not JSON is refused with a
 * message saying what to pass instead), raw bytes ({@code byte[]}, hashed as they are, under a different domain
 * tag so they never equal a JSON request), or anything the {@link JsonCodec} can write (POJOs,
 * Maps, JsonNode), which is written and then canonicalized like text. Doubles in such
 * objects are written in their shortest round-trip form (so a {@code double} field equals
 * the same number sent as text), and NaN or an infinity is refused with the same
 * {@link InvalidRequestException} as a {@code NaN} in JSON text, rather than written as a
 * string as Jackson does by default.
 */
public final class Fingerprinter {
    private static final byte[] DOMAIN = "idem-fingerprint/v1\0".getBytes(StandardCharsets.US_ASCII);

    private static final int PLAIN_LENGTH = 32;
    private static final byte KEYED = 'K';
    private static final byte KEYED_VERSION = 1;

    private final JsonCodec json;
    private final int maxRequestBytes;
    private final PointerSet excluded;
    private final KeyProvider secrets;

    /** Creates a fingerprinter writing object requests with {@code mapper}; {@code excluded} applies to every request. */
    public Fingerprinter(ObjectMapper mapper, int maxRequestBytes, PointerSet excluded) {
        this(new Jackson2JsonCodec(mapper), maxRequestBytes, excluded, null);
    }

    /** Creates a fingerprinter writing object requests with {@code json}; {@code excluded} applies to every request. */
    public Fingerprinter(JsonCodec json, int maxRequestBytes, PointerSet excluded) {
        this(json, maxRequestBytes, excluded, null);
    }

    /**
     * Creates a fingerprinter whose fingerprints are keyed with the current secret of
     * {@code secrets} (HMAC-SHA-256), or plain SHA-256 if it is null.
     */
    public Fingerprinter(JsonCodec json, int maxRequestBytes, PointerSet excluded, KeyProvider secrets) {
        this.json = json;
        this.maxRequestBytes = maxRequestBytes;
        this.excluded = excluded;
        this.secrets = secrets;
    }

    /**
     * The fingerprint of {@code request} for {@code operation}, with extra exclusions for this
     * call: SHA-256, or with keyed fingerprints the HMAC-SHA-256 under the current secret,
     * prefixed by its id.
     */
    public byte[] fingerprint(String operation, Object request, PointerSet extraExcluded) {
        if (secrets == null) {
            MessageDigest sha = borrowSha256();
            feed(sha, operation, request, excluded.plus(extraExcluded));
            return digestAndReturn(sha);
        }
        return keyed(currentSecret(), operation, request, excluded.plus(extraExcluded));
    }

    /**
     * The fingerprint of {@code request} in the version {@code recorded} was taken in, when that
     * is not the version {@link #fingerprint} takes now: a record claimed before keyed
     * fingerprints were turned on, or under a secret rotated since. The caller compares it with
     * {@code recorded}, so a retry of such a key is still known as the same request.
     *
     * @return the fingerprint in the recorded version, or null if {@code recorded} is in the
     *     current version (then a difference is a different request) or in no known version
     * @throws OutcomeUnreadableException if it was keyed with a secret no longer provided
     */
    public byte[] underVersionOf(byte[] recorded, IdempotencyKey key, Object request, PointerSet extraExcluded) {
        PointerSet pointers = excluded.plus(extraExcluded);
        if (recorded.length == PLAIN_LENGTH) {
            if (secrets == null) {
                return null;
            }
            MessageDigest sha = borrowSha256();
            feed(sha, key.operation(), request, pointers);
            return digestAndReturn(sha);
        }
        String id = keyedId(recorded);
        if (id == null) {
            return null;
        }
        if (secrets == null) {
            throw missingSecret(key, id, "keyed fingerprints are off (IdempotencyEngineBuilder.keyedFingerprints)");
        }
        if (id.equals(currentSecret().id())) {
            return null;
        }
        KeyVersion secret;
        try {
            secret = secrets.find(id);
        } catch (RuntimeException e) {
            throw new OutcomeUnreadableException(key, Reason.KEY_PROVIDER_FAILED, id, "the fingerprint secret"
                    + " provider failed to give id '" + id + "': " + e.getClass().getName(), e);
        }
        if (secret == null) {
            throw missingSecret(key, id, "the fingerprint secret provider does not have it");
        }
        return keyed(secret, key.operation(), request, pointers);
    }

    private static OutcomeUnreadableException missingSecret(IdempotencyKey key, String id, String why) {
        return new OutcomeUnreadableException(key, Reason.KEY_MISSING, id, "its request fingerprint was keyed with"
                + " secret id '" + id + "' and " + why + ", so a retry cannot be told from another request", null);
    }

    /** The secret id a keyed fingerprint names, or null if {@code fingerprint} is not one. */
    public static String keyedId(byte[] fingerprint) {
        if (fingerprint.length < 4 || fingerprint[0] != KEYED || fingerprint[1] != KEYED_VERSION
                || fingerprint.length != 3 + (fingerprint[2] & 0xFF) + PLAIN_LENGTH) {
            return null;
        }
        return new String(fingerprint, 3, fingerprint[2] & 0xFF, StandardCharsets.US_ASCII);
    }

    private KeyVersion currentSecret() {
        KeyVersion current = secrets.current();
        if (current == null) {
            throw new IllegalStateException("the fingerprint secret provider " + secrets.getClass().getName()
                    + " returned no current secret");
        }
        return current;
    }

    // 'K' 0x01, the id's length and the id, then the 32-byte HMAC: never 32 bytes long, so
    // never taken for a plain SHA-256 fingerprint.
    private byte[] keyed(KeyVersion secret, String operation, Object request, PointerSet pointers) {
        MacDigest mac = MacDigest.borrow(secret);
        feed(mac, operation, request, pointers);
        byte[] digest = mac.digest();
        MacDigest.giveBack(mac);
        byte[] id = secret.id().getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[3 + id.length + digest.length];
        out[0] = KEYED;
        out[1] = KEYED_VERSION;
        out[2] = (byte) id.length;
        System.arraycopy(id, 0, out, 3, id.length);
        System.arraycopy(digest, 0, out, 3 + id.length, digest.length);
        return out;
    }

    private void feed(MessageDigest sha, String operation, Object request, PointerSet pointers) {
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
            checkTextSize(text);
            sha.update((byte) 'J');
            try {
                JsonCanonicalizer.digest(text, pointers, sha);
            } catch (InvalidRequestException e) {
                if (e.tooLarge()) {
                    throw e;
                }
                // The usual cause is a plain token ("order-42") passed where JSON text is read.
                throw new InvalidRequestException(e.getMessage() + "; a String request must be JSON text (for"
                        + " example \"{\\\"order\\\":42}\" or the quoted \"\\\"order-42\\\"\"): to fingerprint a"
                        + " plain string, pass its bytes (text.getBytes(StandardCharsets.UTF_8)), a"
                        + " TextNode, or an object or Map that holds it", false, e);
            }
        } else {
            byte[] written;
            try {
                written = json.writeRequest(request);
            } catch (InvalidRequestException e) {
                throw e;
            } catch (IOException | RuntimeException e) {
                // The object was built by the server, so this is the server's fault, not a bad request.
                String why = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
                throw new RequestSerializationException(
                        "request of type " + request.getClass().getName() + " cannot be written as JSON: " + why
                                + (mentionsJavaTime(why) ? JAVA_TIME_FIX : ""),
                        e);
            }
            checkSize(written.length);
            sha.update((byte) 'J');
            JsonCanonicalizer.digest(written, pointers, sha);
        }
    }

    // Jackson 2 names the missing module but not where an engine takes its mapper from.
    static final String JAVA_TIME_FIX = "; to write java.time values, give the engine an ObjectMapper that"
            + " knows them: IdempotencyEngine.builder().objectMapper(new ObjectMapper().registerModule(new"
            + " JavaTimeModule())) with com.fasterxml.jackson.datatype:jackson-datatype-jsr310 on the class path"
            + " (the engine's default mapper registers it by itself when it is there), or, with Jackson 3 (whose"
            + " databind writes java.time itself), .jsonCodec(Jackson3JsonCodec.of(jsonMapper)) from idem-jackson3";

    private static boolean mentionsJavaTime(@Nullable String message) {
        return message != null && (message.contains("java.time") || message.contains("jsr310"));
    }

    // The limit is in bytes; a String's length counts UTF-16 units, up to three times fewer.
    static long utf8Length(String s) {
        int n = s.length();
        long bytes = n;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    bytes += 1;
                } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    bytes += 2;
                    i++;
                } else {
                    bytes += 2;
                }
            }
        }
        return bytes;
    }

    // A char is at most three UTF-8 bytes: only text that might not fit needs counting (a pass over it).
    private void checkTextSize(String text) {
        if (3L * text.length() > maxRequestBytes) {
            checkSize(utf8Length(text));
        }
    }

    private void checkSize(long size) {
        if (size > maxRequestBytes) {
            throw new InvalidRequestException(
                    "request is " + size + " bytes; the limit is " + maxRequestBytes, true, null);
        }
    }

    private static final MessageDigest PROTOTYPE = newSha256();
    private static final ThreadLocal<MessageDigest[]> SPARE = ThreadLocal.withInitial(() -> new MessageDigest[1]);

    /**
     * The thread's spare SHA-256 digest, taken out of its slot while in use: a fingerprint taken
     * while another is under way on the same thread (from a serializer) gets a fresh one, and
     * one lost to an exception is simply replaced. Give it back with {@link #digestAndReturn}.
     */
    public static MessageDigest borrowSha256() {
        MessageDigest[] slot = SPARE.get();
        MessageDigest sha = slot[0];
        if (sha == null) {
            return sha256();
        }
        slot[0] = null;
        return sha;
    }

    /** Completes a digest from {@link #borrowSha256()} and puts it back in the thread's slot. */
    public static byte[] digestAndReturn(MessageDigest sha) {
        byte[] result = sha.digest();
        SPARE.get()[0] = sha;
        return result;
    }

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
