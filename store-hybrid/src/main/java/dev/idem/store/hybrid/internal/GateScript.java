package dev.idem.store.hybrid.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One of the gate's Lua scripts (with {@code common.lua} in front of it) and the SHA-1 that
 * {@code EVALSHA} names it by, computed here so no round trip is spent on {@code SCRIPT LOAD}.
 */
enum GateScript {
    CLAIM("claim"),
    FIX("fix"),
    FINISHED("finished"),
    EXTENDED("extended"),
    REFUSED("refused"),
    OBSERVED("observed");

    private final String label;
    private final byte[] source;
    private final byte[] sha;

    GateScript(String label) {
        this.label = label;
        byte[] common = read("common.lua");
        byte[] own = read(label + ".lua");
        byte[] all = new byte[common.length + 1 + own.length];
        System.arraycopy(common, 0, all, 0, common.length);
        all[common.length] = '\n';
        System.arraycopy(own, 0, all, common.length + 1, own.length);
        this.source = all;
        try {
            this.sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(all))
                    .getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required on every Java platform", e);
        }
    }

    private static byte[] read(String resource) {
        try (InputStream in = GateScript.class.getResourceAsStream(resource)) {
            Objects.requireNonNull(in, () -> "missing script resource " + resource);
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }

    String label() {
        return label;
    }

    byte[] source() {
        return source;
    }

    byte[] sha() {
        return sha;
    }
}
