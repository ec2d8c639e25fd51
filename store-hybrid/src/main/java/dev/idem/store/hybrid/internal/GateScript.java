package dev.idem.store.hybrid.internal;

import dev.idem.store.redis.RedisScript;

/** The gate's Lua scripts, each sent with {@code common.lua} in front of it. */
enum GateScript {
    CLAIM("claim"),
    FIX("fix"),
    FINISHED("finished"),
    EXTENDED("extended"),
    REFUSED("refused"),
    OBSERVED("observed");

    private final RedisScript script;

    GateScript(String label) {
        this.script = RedisScript.load(GateScript.class, label, "common.lua");
    }

    String label() {
        return script.name();
    }

    RedisScript script() {
        return script;
    }
}
