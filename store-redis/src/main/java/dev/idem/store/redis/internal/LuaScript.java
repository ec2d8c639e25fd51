package dev.idem.store.redis.internal;

import dev.idem.store.redis.RedisScript;

/** The store's Lua scripts, each sent with the shared helpers of {@code common.lua} in front of it. */
public final class LuaScript {
    /** Inserts, takes over or reports the record. */
    public static final RedisScript CLAIM = load("claim");
    /** Fenced completion. */
    public static final RedisScript COMPLETE = load("complete");
    /** Fenced release. */
    public static final RedisScript RELEASE = load("release");
    /** Fenced replacement of the step journal. */
    public static final RedisScript CHECKPOINT = load("checkpoint");
    /** Fenced lease extension. */
    public static final RedisScript EXTEND = load("extend");
    /** Read with the expiry judged on the server clock. */
    public static final RedisScript FIND = load("find");

    private LuaScript() {
    }

    private static RedisScript load(String name) {
        return RedisScript.load(LuaScript.class, name, "common.lua");
    }
}
