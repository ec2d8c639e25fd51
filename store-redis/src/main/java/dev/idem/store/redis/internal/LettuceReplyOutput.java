package dev.idem.store.redis.internal;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decodes any script reply the way {@link dev.idem.store.redis.RedisScriptClient} gives it:
 * integers as {@code Long}, bulk and status strings as {@code byte[]}, nil as {@code null},
 * arrays (nested too) as lists, and a RESP3 boolean as RESP2 carried it ({@code 1} or nil).
 * Lettuce's own outputs are each made for one reply type (and its generic one turns a top-level
 * integer into a list), so the stores decode through this one. Elements are counted here,
 * without relying on the decoder's depth callbacks.
 */
final class LettuceReplyOutput extends CommandOutput<byte[], byte[], @Nullable Object> {
    private static final class Frame {
        final List<@Nullable Object> list;
        int remaining;

        Frame(List<@Nullable Object> list, int remaining) {
            this.list = list;
            this.remaining = remaining;
        }
    }

    private final ArrayDeque<Frame> open = new ArrayDeque<>();

    LettuceReplyOutput() {
        super(ByteArrayCodec.INSTANCE, null);
    }

    @Override
    public void set(@Nullable ByteBuffer bytes) {
        add(bytes == null ? null : copy(bytes));
    }

    @Override
    public void setSingle(@Nullable ByteBuffer bytes) {
        add(bytes == null ? null : copy(bytes));
    }

    @Override
    public void setBigNumber(@Nullable ByteBuffer bytes) {
        add(bytes == null ? null : copy(bytes));
    }

    @Override
    public void set(long integer) {
        add(integer);
    }

    @Override
    public void set(double number) {
        add(number);
    }

    @Override
    public void set(boolean value) {
        add(value ? (Object) 1L : null);
    }

    @Override
    public void multi(int count) {
        if (count < 0) {
            add(null);
            return;
        }
        List<@Nullable Object> list = new ArrayList<>(count);
        add(list);
        if (count > 0) {
            open.push(new Frame(list, count));
        }
    }

    @Override
    public void complete(int depth) {
        // Element counts close the arrays (see add).
    }

    private void add(@Nullable Object value) {
        Frame top = open.peek();
        if (top == null) {
            output = value;
            return;
        }
        top.list.add(value);
        top.remaining--;
        while (top != null && top.remaining == 0) {
            open.pop();
            top = open.peek();
        }
    }

    private static byte[] copy(ByteBuffer bytes) {
        byte[] b = new byte[bytes.remaining()];
        bytes.get(b);
        return b;
    }
}
