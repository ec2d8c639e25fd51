package dev.idem.store.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One of the store's Lua scripts, with the SHA-1 digest that {@code EVALSHA} names it by.
 * The digest is computed here rather than asked of Redis, so no round trip is spent on
 * {@code SCRIPT LOAD} before the first use.
 */
public final class LuaScript {
    /** Inserts, takes over or reports the record. */
    public static final LuaScript CLAIM = load("claim");
    /** Fenced completion. */
    public static final LuaScript COMPLETE = load("complete");
    /** Fenced release. */
    public static final LuaScript RELEASE = load("release");
    /** Fenced replacement of the step journal. */
    public static final LuaScript CHECKPOINT = load("checkpoint");
    /** Fenced lease extension. */
    public static final LuaScript EXTEND = load("extend");
    /** Read with the expiry judged on the server clock. */
    public static final LuaScript FIND = load("find");

    private final String name;
    private final byte[] source;
    private final byte[] sha;

    private LuaScript(String name, byte[] source) {
        this.name = name;
        this.source = source;
        this.sha = sha1Hex(source).getBytes(StandardCharsets.US_ASCII);
    }

    // Every script is sent with the shared helpers of common.lua in front of it.
    private static LuaScript load(String name) {
        byte[] common = read("common.lua");
        byte[] own = read(name + ".lua");
        byte[] source = new byte[common.length + 1 + own.length];
        System.arraycopy(common, 0, source, 0, common.length);
        source[common.length] = '\n';
        System.arraycopy(own, 0, source, common.length + 1, own.length);
        return new LuaScript(name, source);
    }

    private static byte[] read(String resource) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            Objects.requireNonNull(in, () -> "missing script resource " + resource);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }

    private static String sha1Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required on every Java platform", e);
        }
    }

    /** The script's short name, for error messages. */
    public String name() {
        return name;
    }

    /** The Lua source, as sent by {@code EVAL}; callers must not modify it. */
    public byte[] source() {
        return source;
    }

    /** The lower-case hex SHA-1 of the source, as sent by {@code EVALSHA}; callers must not modify it. */
    public byte[] sha() {
        return sha;
    }
}
