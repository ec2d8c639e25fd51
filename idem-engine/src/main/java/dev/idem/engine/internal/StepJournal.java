package dev.idem.engine.internal;

import dev.idem.api.IdempotencyException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The step journal saved in a key's record: the finished steps of the work, in the order
 * they ran, each with its result in the engine's outcome format ({@link OutcomeCodec}).
 * Immutable; {@link #append} returns a new journal.
 *
 * <h2>Format, version 1</h2>
 * <pre>
 *   'I' 'D' 'J' 0x01                      magic and version
 *   then per step, until the end:
 *     u16  length of the name in UTF-8     big-endian
 *     ...  the name
 *     u32  length of the result            big-endian
 *     ...  the result (kind byte 'S' and JSON, as stored outcomes)
 * </pre>
 * Names and results are readable in a hex dump. A journal of another version is refused
 * with a message rather than misread, so a format change needs a new version number and
 * a reader for the old one.
 */
public final class StepJournal {
    /** Longest step name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 200;

    private static final byte[] MAGIC = {'I', 'D', 'J'};
    private static final byte VERSION = 1;
    private static final byte[] EMPTY = {'I', 'D', 'J', VERSION};

    private final byte[] bytes;
    private final List<Entry> entries;

    /** One finished step. */
    public record Entry(String name, byte[] result) {
    }

    private StepJournal(byte[] bytes, List<Entry> entries) {
        this.bytes = bytes;
        this.entries = entries;
    }

    /**
     * The journal with no finished step.
     *
     * @return an empty journal
     */
    public static StepJournal empty() {
        return new StepJournal(EMPTY, List.of());
    }

    /**
     * Reads a journal saved by a store.
     *
     * @param bytes the saved bytes, or null for none
     * @return the journal (empty for null)
     * @throws IdempotencyException if the bytes are not a journal this engine can read
     */
    public static StepJournal decode(byte[] bytes) {
        if (bytes == null) {
            return empty();
        }
        if (bytes.length < EMPTY.length || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new IdempotencyException("the key's step journal is not in idem's format");
        }
        if (bytes[MAGIC.length] != VERSION) {
            throw new IdempotencyException("the key's step journal has format version " + (bytes[MAGIC.length] & 0xFF)
                    + "; this engine reads version " + VERSION + " (was it written by a newer idem?)");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, EMPTY.length, bytes.length - EMPTY.length);
        List<Entry> entries = new ArrayList<>();
        try {
            while (in.hasRemaining()) {
                byte[] name = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(name);
                int length = in.getInt();
                if (length < 0 || length > in.remaining()) {
                    throw new IdempotencyException("the key's step journal is truncated");
                }
                byte[] result = new byte[length];
                in.get(result);
                entries.add(new Entry(new String(name, StandardCharsets.UTF_8), result));
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw new IdempotencyException("the key's step journal is truncated", e);
        }
        return new StepJournal(bytes, Collections.unmodifiableList(entries));
    }

    /**
     * Whether saved journal bytes hold at least one step, without decoding them.
     *
     * @param bytes the saved bytes, or null for none
     * @return true if there is more than the header
     */
    public static boolean holdsSteps(byte[] bytes) {
        return bytes != null && bytes.length > EMPTY.length;
    }

    /**
     * Checks a step name: not empty, at most {@value #MAX_NAME_BYTES} bytes in UTF-8.
     *
     * @param name the name
     * @return the name
     * @throws IllegalArgumentException if it is not a valid step name
     */
    public static String checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a step name must not be null or empty");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("step name '" + name.substring(0, 40) + "...' is longer than "
                    + MAX_NAME_BYTES + " bytes in UTF-8");
        }
        return name;
    }

    /**
     * The journal with one more finished step.
     *
     * @param name the step's name (checked by {@link #checkName})
     * @param result the step's encoded result
     * @return a new journal
     */
    public StepJournal append(String name, byte[] result) {
        byte[] utf8 = checkName(name).getBytes(StandardCharsets.UTF_8);
        long size = (long) bytes.length + 2 + utf8.length + 4 + result.length;
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a step journal cannot exceed 2 GiB");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        out.put(bytes).putShort((short) utf8.length).put(utf8).putInt(result.length).put(result);
        List<Entry> more = new ArrayList<>(entries.size() + 1);
        more.addAll(entries);
        more.add(new Entry(name, result));
        return new StepJournal(out.array(), Collections.unmodifiableList(more));
    }

    /**
     * What would be saved: callers must not mutate it.
     *
     * @return the encoded journal
     */
    public byte[] bytes() {
        return bytes;
    }

    /**
     * The size {@link #append} would give, without building it.
     *
     * @param name the step's name
     * @param result the step's encoded result
     * @return the size in bytes
     */
    public long sizeWith(String name, byte[] result) {
        return (long) bytes.length + 2 + name.getBytes(StandardCharsets.UTF_8).length + 4 + result.length;
    }

    /**
     * The finished steps, in order.
     *
     * @return an unmodifiable list
     */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * How many steps are finished.
     *
     * @return the count
     */
    public int size() {
        return entries.size();
    }
}
