package dev.idem.engine.protection;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A fixed set of key versions, one of them current: the simple {@link KeyProvider}, for keys
 * given in code or configuration. Immutable; {@link #toString()} lists ids only.
 *
 * <pre>{@code
 * // One key:
 * KeyRing keys = KeyRing.of(KeyVersion.fromBase64("2026-01", System.getenv("IDEM_KEY_2026_01")));
 * // Rotation: new records under 2026-06, older ones still read under 2026-01.
 * KeyRing rotated = KeyRing.of(KeyVersion.fromBase64("2026-06", newKey), KeyVersion.fromBase64("2026-01", oldKey));
 * // From configuration (id -> Base64), naming the current one:
 * KeyRing configured = KeyRing.fromBase64(Map.of("2026-01", oldKey, "2026-06", newKey), "2026-06");
 * }</pre>
 */
public final class KeyRing implements KeyProvider {
    private final KeyVersion current;
    private final Map<String, KeyVersion> byId;

    private KeyRing(KeyVersion current, List<KeyVersion> all) {
        this.current = current;
        Map<String, KeyVersion> map = new LinkedHashMap<>();
        for (KeyVersion k : all) {
            Objects.requireNonNull(k, "key");
            if (map.putIfAbsent(k.id(), k) != null) {
                throw new IllegalArgumentException("key id '" + k.id() + "' is given twice");
            }
        }
        this.byId = Collections.unmodifiableMap(map);
    }

    /**
     * A ring whose current key is {@code current}, with older keys still read.
     *
     * @param current the key new records are protected with
     * @param older keys of records written before, still read
     * @return the ring
     * @throws IllegalArgumentException if two keys share an id
     */
    public static KeyRing of(KeyVersion current, KeyVersion... older) {
        List<KeyVersion> all = new ArrayList<>();
        all.add(Objects.requireNonNull(current, "current"));
        all.addAll(List.of(older));
        return new KeyRing(current, all);
    }

    /**
     * A ring from configuration: key ids mapped to Base64 secrets, and the id of the current one.
     *
     * @param base64ById each key's id and its secret in Base64
     * @param currentId the id of the current key; may be null when there is exactly one key
     * @return the ring
     * @throws IllegalArgumentException if there is no key, {@code currentId} is missing while
     *     there are several, names no given key, or a secret is not valid (the message names
     *     the id, never the secret)
     */
    public static KeyRing fromBase64(Map<String, String> base64ById, @Nullable String currentId) {
        Objects.requireNonNull(base64ById, "base64ById");
        if (base64ById.isEmpty()) {
            throw new IllegalArgumentException("no key is given");
        }
        String chosen = currentId;
        if (chosen == null || chosen.isBlank()) {
            if (base64ById.size() > 1) {
                throw new IllegalArgumentException("several keys are given (" + String.join(", ", base64ById.keySet())
                        + "); name the one new records are written under");
            }
            chosen = base64ById.keySet().iterator().next();
        }
        if (!base64ById.containsKey(chosen)) {
            throw new IllegalArgumentException("the current key '" + chosen + "' is not among the keys given ("
                    + String.join(", ", base64ById.keySet()) + ")");
        }
        List<KeyVersion> all = new ArrayList<>();
        KeyVersion current = null;
        for (Map.Entry<String, String> e : base64ById.entrySet()) {
            KeyVersion k = KeyVersion.fromBase64(e.getKey(), Objects.requireNonNull(e.getValue(), e.getKey()));
            if (k.id().equals(chosen)) {
                current = k;
            }
            all.add(k);
        }
        return new KeyRing(current, all);
    }

    @Override
    public KeyVersion current() {
        return current;
    }

    @Override
    public @Nullable KeyVersion find(String id) {
        return byId.get(id);
    }

    /**
     * The ids of every key in the ring, the current one included.
     *
     * @return the ids, in the order given
     */
    public List<String> ids() {
        return List.copyOf(byId.keySet());
    }

    @Override
    public String toString() {
        return "KeyRing[current=" + current.id() + ", ids=" + byId.keySet() + "]";
    }
}
