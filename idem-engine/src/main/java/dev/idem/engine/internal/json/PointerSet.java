package dev.idem.engine.internal.json;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * A set of RFC 6901 JSON Pointers held as a trie, so the canonicalizer can tell while it
 * streams whether the member it is at is excluded, without building path strings.
 */
public final class PointerSet {
    /** The empty set. */
    public static final PointerSet EMPTY = new PointerSet();

    private static final byte[][] NO_KEYS = new byte[0][];
    private static final PointerSet[] NO_NODES = new PointerSet[0];

    private final Map<String, PointerSet> children = new HashMap<>();
    private boolean terminal;
    // The children again, keyed by the canonical UTF-8 bytes of the member name (as the
    // canonicalizer writes it between the quotes), so a lookup needs no String. A token with
    // a lone surrogate names no member: its key is null.
    private byte[][] keys = NO_KEYS;
    private PointerSet[] nodes = NO_NODES;

    private PointerSet() {
    }

    /**
     * Parses pointers such as {@code /meta/traceId} or {@code /items/0/ts}.
     *
     * @throws IllegalArgumentException if a pointer is not a valid non-root JSON Pointer
     */
    public static PointerSet of(Collection<String> pointers) {
        if (pointers.isEmpty()) {
            return EMPTY;
        }
        PointerSet root = new PointerSet();
        for (String pointer : pointers) {
            if (pointer == null || pointer.isEmpty() || pointer.charAt(0) != '/') {
                throw new IllegalArgumentException(
                        "JSON Pointer must start with '/' (the whole document cannot be excluded): " + pointer);
            }
            PointerSet node = root;
            for (String raw : pointer.substring(1).split("/", -1)) {
                node = node.children.computeIfAbsent(unescape(raw, pointer), t -> new PointerSet());
            }
            node.terminal = true;
        }
        return root.seal();
    }

    /** Merges two sets. */
    public PointerSet plus(PointerSet other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        PointerSet merged = new PointerSet();
        mergeInto(merged, this);
        mergeInto(merged, other);
        return merged.seal();
    }

    private PointerSet seal() {
        int n = children.size();
        keys = new byte[n][];
        nodes = new PointerSet[n];
        int i = 0;
        for (Map.Entry<String, PointerSet> e : children.entrySet()) {
            String token = e.getKey();
            ByteSink canonical = new ByteSink(token.length() * 3);
            keys[i] = canonical.writeJsonStringBody(token.toCharArray(), 0, token.length()) < 0
                    ? canonical.toByteArray() : null;
            nodes[i++] = e.getValue().seal();
        }
        return this;
    }

    private static void mergeInto(PointerSet target, PointerSet source) {
        target.terminal |= source.terminal;
        for (Map.Entry<String, PointerSet> e : source.children.entrySet()) {
            mergeInto(target.children.computeIfAbsent(e.getKey(), k -> new PointerSet()), e.getValue());
        }
    }

    boolean isEmpty() {
        return children.isEmpty() && !terminal;
    }

    /** The subtree for a member or index token; null when nothing below is excluded. */
    PointerSet child(String token) {
        return children.get(token);
    }

    /**
     * The subtree for the member whose canonical name bytes are {@code name[from, to)}; null
     * when nothing below is excluded.
     */
    PointerSet child(byte[] name, int from, int to) {
        byte[][] k = keys;
        for (int i = 0; i < k.length; i++) {
            if (k[i] != null && Arrays.equals(k[i], 0, k[i].length, name, from, to)) {
                return nodes[i];
            }
        }
        return null;
    }

    /** The subtree for array element {@code index}; null when nothing below is excluded. */
    PointerSet child(int index) {
        byte[][] k = keys;
        for (int i = 0; i < k.length; i++) {
            if (k[i] != null && isDecimal(k[i], index)) {
                return nodes[i];
            }
        }
        return null;
    }

    // Whether digits is exactly Integer.toString(value) (no sign, no leading zero).
    private static boolean isDecimal(byte[] digits, int value) {
        int at = digits.length;
        if (at == 0 || (digits[0] == '0' && at > 1)) {
            return false;
        }
        int v = value;
        while (at > 0) {
            byte d = digits[--at];
            if (d < '0' || d > '9' || v % 10 != d - '0') {
                return false;
            }
            v /= 10;
        }
        // Digits left once v is 0 fail above: the first of several is never '0'.
        return v == 0;
    }

    boolean isTerminal() {
        return terminal;
    }

    private static String unescape(String token, String pointer) {
        if (token.indexOf('~') < 0) {
            return token;
        }
        StringBuilder sb = new StringBuilder(token.length());
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c != '~') {
                sb.append(c);
                continue;
            }
            char next = i + 1 < token.length() ? token.charAt(i + 1) : 0;
            if (next == '0') {
                sb.append('~');
            } else if (next == '1') {
                sb.append('/');
            } else {
                throw new IllegalArgumentException("invalid escape in JSON Pointer: " + pointer);
            }
            i++;
        }
        return sb.toString();
    }
}
