package dev.idem.store.redis.internal;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Brings a reply a client decoded from RESP3 to the RESP2 shape the stores read (see
 * {@link dev.idem.store.redis.RedisScriptClient}): a script's Lua {@code false} reaches a RESP3
 * connection as a boolean where RESP2 had nil, and {@code true} where RESP2 had 1.
 */
public final class RespValues {
    private RespValues() {
    }

    /**
     * The reply with RESP3 booleans replaced, nested arrays included; lists are copied only when
     * something in them changes.
     *
     * @param reply the client's reply
     * @return the reply in RESP2 shape
     */
    public static @Nullable Object normalize(@Nullable Object reply) {
        if (reply instanceof Boolean) {
            return (Boolean) reply ? (Object) 1L : null;
        }
        if (!(reply instanceof List)) {
            return reply;
        }
        List<?> list = (List<?>) reply;
        List<@Nullable Object> copy = null;
        for (int i = 0; i < list.size(); i++) {
            Object e = list.get(i);
            Object n = normalize(e);
            if (n != e && copy == null) {
                copy = new ArrayList<>(list.size());
                copy.addAll(list.subList(0, i));
            }
            if (copy != null) {
                copy.add(n);
            }
        }
        return copy == null ? list : copy;
    }
}
