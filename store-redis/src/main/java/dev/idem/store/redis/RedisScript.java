package dev.idem.store.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A Lua script as a {@link RedisScriptClient} runs it: its source, as {@code EVAL} sends it, and
 * the SHA-1 digest {@code EVALSHA} names it by. The digest is computed here, so no round trip is
 * spent on {@code SCRIPT LOAD} before the first use. Immutable; the arrays returned by
 * {@link #source()} and {@link #sha()} are shared and must not be modified.
 */
public final class RedisScript {
    private final String name;
    private final byte[] source;
    private final byte[] sha;
    private final String shaHex;

    private RedisScript(String name, byte[] source) {
        this.name = name;
        this.source = source;
        this.shaHex = sha1Hex(source);
        this.sha = shaHex.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A script from its source.
     *
     * @param name a short name for error messages, such as {@code claim}
     * @param source the Lua source
     * @return the script
     */
    public static RedisScript of(String name, byte[] source) {
        Objects.requireNonNull(name, "name");
        return new RedisScript(name, Objects.requireNonNull(source, "source").clone());
    }

    /**
     * A script read from class path resources next to {@code anchor}: the {@code prelude}
     * resources (shared helpers), each followed by a newline, then {@code name + ".lua"}.
     *
     * @param anchor the class whose package holds the resources
     * @param name the script's name, without {@code .lua}
     * @param prelude resources sent in front of the script, such as {@code common.lua}
     * @return the script
     * @throws UncheckedIOException if a resource cannot be read
     * @throws NullPointerException if a resource is missing
     */
    public static RedisScript load(Class<?> anchor, String name, String... prelude) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (String p : prelude) {
            all.writeBytes(read(anchor, p));
            all.write('\n');
        }
        all.writeBytes(read(anchor, name + ".lua"));
        return new RedisScript(name, all.toByteArray());
    }

    private static byte[] read(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            Objects.requireNonNull(in, () -> "missing script resource " + resource + " next to " + anchor.getName());
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

    /**
     * The script's short name, for error messages.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The Lua source, as {@code EVAL} sends it; shared, must not be modified.
     *
     * @return the source
     */
    public byte[] source() {
        return source;
    }

    /**
     * The lower-case hex SHA-1 of the source as ASCII bytes, as {@code EVALSHA} sends it; shared, must not be modified.
     *
     * @return the digest
     */
    public byte[] sha() {
        return sha;
    }

    /**
     * The lower-case hex SHA-1 of the source.
     *
     * @return the digest as text
     */
    public String shaHex() {
        return shaHex;
    }

    @Override
    public String toString() {
        return "RedisScript[" + name + ", " + shaHex + "]";
    }
}
