package dev.idem.store.redis.internal;

import dev.idem.api.StoreUnavailableException;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * Runs the store's scripts: {@code EVALSHA} first, {@code EVAL} (which also caches the
 * script) only when the node answers NOSCRIPT, i.e. on first use after a start, restart,
 * failover or {@code SCRIPT FLUSH}. Every client failure leaves here as a
 * {@link StoreUnavailableException}.
 */
public final class ScriptRunner {
    private final UnifiedJedis jedis;

    /** Creates a runner on the user's client (standalone or cluster). */
    public ScriptRunner(UnifiedJedis jedis) {
        this.jedis = jedis;
    }

    /** Runs {@code script} on {@code key}'s node and returns the raw reply. */
    public Object run(LuaScript script, byte[] key, List<byte[]> args) {
        List<byte[]> keys = List.of(key);
        try {
            try {
                return jedis.evalsha(script.sha(), keys, args);
            } catch (JedisNoScriptException e) {
                return jedis.eval(script.source(), keys, args);
            }
        } catch (JedisException e) {
            throw translate(script, e);
        }
    }

    /**
     * Runs {@code script} and then {@code WAIT replicas timeout} on the same connection, in
     * one pipelined round trip (WAIT only covers writes made by its own connection, and
     * scripts may not call it).
     *
     * @return the script's reply and the number of replicas that acknowledged
     */
    public Object[] runThenWait(LuaScript script, byte[] key, List<byte[]> args, int replicas, long timeoutMillis) {
        List<byte[]> keys = List.of(key);
        try {
            Object[] first = pipelined(script, key, keys, args, replicas, timeoutMillis, false);
            if (first[0] instanceof JedisNoScriptException) {
                first = pipelined(script, key, keys, args, replicas, timeoutMillis, true);
            }
            if (first[0] instanceof JedisException) {
                throw (JedisException) first[0];
            }
            return first;
        } catch (JedisException e) {
            throw translate(script, e);
        }
    }

    private Object[] pipelined(LuaScript script, byte[] key, List<byte[]> keys, List<byte[]> args, int replicas,
            long timeoutMillis, boolean sendSource) {
        Response<Object> reply;
        Response<Long> acked;
        try (AbstractPipeline p = jedis.pipelined()) {
            reply = sendSource ? p.eval(script.source(), keys, args) : p.evalsha(script.sha(), keys, args);
            acked = p.waitReplicas(key, replicas, timeoutMillis);
            p.sync();
        }
        Object value;
        try {
            value = reply.get();
        } catch (JedisDataException e) {
            return new Object[] {e, null};
        }
        return new Object[] {value, acked.get()};
    }

    /** Maps a client failure to the store's error, deciding whether a retry may help. */
    public static StoreUnavailableException translate(LuaScript script, JedisException e) {
        String message = "Redis " + script.name() + " failed: " + e.getMessage();
        return new StoreUnavailableException(message, e, retryable(e));
    }

    private static boolean retryable(JedisException e) {
        if (e instanceof JedisConnectionException) {
            return true;
        }
        if (e instanceof JedisAccessControlException) {
            return false;
        }
        if (e instanceof JedisDataException) {
            String m = String.valueOf(e.getMessage()).toUpperCase(Locale.ROOT);
            // Transient server states; anything else (WRONGTYPE, a script error, a corrupt
            // record) will fail the same way next time.
            return m.startsWith("LOADING") || m.startsWith("BUSY") || m.startsWith("TRYAGAIN")
                    || m.startsWith("CLUSTERDOWN") || m.startsWith("MASTERDOWN") || m.startsWith("READONLY")
                    || m.startsWith("OOM") || m.startsWith("NOREPLICAS") || m.startsWith("MOVED")
                    || m.startsWith("ASK");
        }
        // Pool exhaustion, cluster retries used up, and similar client-side conditions.
        return true;
    }
}
