package dev.idem.benchmarks.internal;

import dev.idem.api.IdempotencyKey;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One {@code EVALSHA} per operation, of the smallest scripts that keep claim and complete
 * atomic: the claim reads the server clock, returns the hash if it exists, else writes it
 * with its expiry; the completion checks the token and writes the outcome.
 */
final class RedisRaw implements RawBaseline {
    private static final String CLAIM = ""
            + "local r = redis.call('HMGET', KEYS[1], 's', 'f', 't', 'l', 'o')\n"
            + "if r[1] then return r end\n"
            + "local t = redis.call('TIME')\n"
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
            + "redis.call('HSET', KEYS[1], 's', 'I', 'f', ARGV[1], 't', ARGV[2], 'l', now + tonumber(ARGV[3]))\n"
            + "redis.call('PEXPIRE', KEYS[1], ARGV[4])\n"
            + "return false\n";
    private static final String COMPLETE = ""
            + "if redis.call('HGET', KEYS[1], 't') ~= ARGV[1] then return 0 end\n"
            + "redis.call('HSET', KEYS[1], 's', 'C', 'o', ARGV[2])\n"
            + "redis.call('HDEL', KEYS[1], 'l')\n"
            + "redis.call('PEXPIRE', KEYS[1], ARGV[3])\n"
            + "return 1\n";

    private final UnifiedJedis client;
    private final byte[] claimScript;
    private final byte[] completeScript;
    private final byte[] claimSha;
    private final byte[] completeSha;
    private final byte[] lease;
    private final byte[] ttl;

    RedisRaw(UnifiedJedis client, long leaseMillis, long ttlMillis) {
        this.client = client;
        this.claimScript = ascii(CLAIM);
        this.completeScript = ascii(COMPLETE);
        this.claimSha = sha1(claimScript);
        this.completeSha = sha1(completeScript);
        this.lease = ascii(Long.toString(leaseMillis));
        this.ttl = ascii(Long.toString(ttlMillis));
    }

    @Override
    public Object claim(IdempotencyKey key, byte[] fingerprint, long token) {
        return run(claimSha, claimScript, redisKey(key), List.of(fingerprint, ascii(Long.toString(token)), lease, ttl));
    }

    @Override
    public boolean complete(IdempotencyKey key, long token, byte[] outcome) {
        Object reply = run(completeSha, completeScript, redisKey(key), List.of(ascii(Long.toString(token)), outcome, ttl));
        return Long.valueOf(1).equals(reply);
    }

    // EVALSHA, and EVAL once per node that does not know the script yet (what the store does).
    private Object run(byte[] sha, byte[] script, byte[] key, List<byte[]> args) {
        List<byte[]> keys = List.of(key);
        try {
            return client.evalsha(sha, keys, args);
        } catch (JedisNoScriptException e) {
            return client.eval(script, keys, args);
        }
    }

    private static byte[] sha1(byte[] script) {
        try {
            return ascii(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(script)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required on every Java platform", e);
        }
    }

    private static byte[] redisKey(IdempotencyKey key) {
        return ("raw:" + key.scope() + ':' + key.operation() + ':' + key.key()).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
