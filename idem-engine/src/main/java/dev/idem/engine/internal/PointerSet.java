package dev.idem.engine.internal;

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

    private final Map<String, PointerSet> children = new HashMap<>();
    private boolean terminal;

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
        return root;
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
        return merged;
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
