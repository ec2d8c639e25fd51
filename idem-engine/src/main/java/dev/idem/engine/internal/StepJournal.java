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
 * they ran, each with its result in the engine's outcome format ({@link OutcomeCodec}), and
 * possibly, last, an at-most-once step that was started but has no result yet (its start
 * marker). Immutable; {@link #append}, {@link #start} and {@link #finish} return a new journal.
 *
 * <h2>Format</h2>
 * <pre>
 *   'I' 'D' 'J' v                          magic and version: 1, or 2 when the journal ends in a start marker
 *   then per finished step, until the end or the marker:
 *     u16  length of the name in UTF-8     big-endian
 *     ...  the name
 *     u32  length of the result            big-endian
 *     ...  the result (kind byte 'S' and JSON, as stored outcomes)
 *   version 2 only, last: the start marker
 *     u16  length of the name in UTF-8
 *     ...  the name
 *     u32  0xFFFFFFFF                      no result: started, not finished
 *     u32  the attempt that started it     big-endian
 * </pre>
 * Names and results are readable in a hex dump. A journal is written in the lowest version
 * that holds it, so a journal without a marker stays readable by an engine that knows only
 * version 1, and one with a marker is refused by it with a message rather than misread (its
 * step would run again blindly). A journal of another version is refused likewise, so a format
 * change needs a new version number and a reader for the old one.
 */
public final class StepJournal {
    /** Longest step name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 200;

    private static final byte[] MAGIC = {'I', 'D', 'J'};
    private static final byte VERSION = 1;
    private static final byte VERSION_WITH_MARKER = 2;
    private static final byte[] EMPTY = {'I', 'D', 'J', VERSION};
    /** The result length that marks a started step without a result. */
    private static final int STARTED = -1;

    private final byte[] bytes;
    /** How many leading bytes hold the header and the finished steps (all of them when there is no marker). */
    private final int settled;
    private final List<Entry> entries;

    /**
     * One step of the journal: finished with its result, or (only last) started without one.
     *
     * @param name the step's name
     * @param result the step's encoded result, or null for a started step without a result
     * @param startedBy for a started step, the attempt that wrote its start marker; 0 for a finished step
     */
    public record Entry(String name, byte[] result, int startedBy) {
        /**
         * A finished step.
         *
         * @param name the step's name
         * @param result its encoded result
         */
        public Entry(String name, byte[] result) {
            this(name, result, 0);
        }

        /**
         * Whether this is a start marker: the step was started and has no result on record.
         *
         * @return true for a started step without a result
         */
        public boolean started() {
            return result == null;
        }
    }

    private StepJournal(byte[] bytes, int settled, List<Entry> entries) {
        this.bytes = bytes;
        this.settled = settled;
        this.entries = entries;
    }

    /**
     * The journal with no finished step.
     *
     * @return an empty journal
     */
    public static StepJournal empty() {
        return new StepJournal(EMPTY, EMPTY.length, List.of());
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
        byte version = bytes[MAGIC.length];
        if (version != VERSION && version != VERSION_WITH_MARKER) {
            throw new IdempotencyException("the key's step journal has format version " + (version & 0xFF)
                    + "; this engine reads versions " + VERSION + " and " + VERSION_WITH_MARKER
                    + " (was it written by a newer idem?)");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes, EMPTY.length, bytes.length - EMPTY.length);
        List<Entry> entries = new ArrayList<>();
        int settled = bytes.length;
        try {
            while (in.hasRemaining()) {
                int at = in.position();
                byte[] name = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(name);
                int length = in.getInt();
                if (length == STARTED && version == VERSION_WITH_MARKER) {
                    int attempt = in.getInt();
                    if (in.hasRemaining()) {
                        throw new IdempotencyException("the key's step journal has a start marker before its end");
                    }
                    settled = at;
                    entries.add(new Entry(new String(name, StandardCharsets.UTF_8), null, attempt));
                    break;
                }
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
        if (version == VERSION_WITH_MARKER && settled == bytes.length) {
            throw new IdempotencyException("the key's step journal has format version 2 but no start marker");
        }
        return new StepJournal(bytes, settled, Collections.unmodifiableList(entries));
    }

    /**
     * Whether saved journal bytes hold at least one step (a start marker counts), without decoding them.
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
     * The journal with one more finished step. A start marker of the same step, if the
     * journal ends in one, is replaced by the result.
     *
     * @param name the step's name (checked by {@link #checkName})
     * @param result the step's encoded result
     * @return a new journal
     * @throws IllegalStateException if the journal ends in the start marker of another step
     */
    public StepJournal append(String name, byte[] result) {
        byte[] utf8 = checkName(name).getBytes(StandardCharsets.UTF_8);
        checkMarkerOf(name);
        ByteBuffer out = settledPlus(2 + utf8.length + 4 + result.length, VERSION);
        out.putShort((short) utf8.length).put(utf8).putInt(result.length).put(result);
        List<Entry> more = new ArrayList<>(finished());
        more.add(new Entry(name, result));
        return new StepJournal(out.array(), out.capacity(), Collections.unmodifiableList(more));
    }

    /**
     * The same as {@link #append}: the step's start marker, if there is one, replaced by its result.
     *
     * @param name the step's name
     * @param result the step's encoded result
     * @return a new journal
     */
    public StepJournal finish(String name, byte[] result) {
        return append(name, result);
    }

    /**
     * The journal with {@code name} started by {@code attempt} and no result yet: its start
     * marker, last. A marker the journal ends in (the same step started by an earlier attempt,
     * which did not happen) is replaced.
     *
     * @param name the step's name (checked by {@link #checkName})
     * @param attempt the attempt that starts it
     * @return a new journal
     * @throws IllegalStateException if the journal ends in the start marker of another step
     */
    public StepJournal start(String name, int attempt) {
        byte[] utf8 = checkName(name).getBytes(StandardCharsets.UTF_8);
        checkMarkerOf(name);
        ByteBuffer out = settledPlus(2 + utf8.length + 4 + 4, VERSION_WITH_MARKER);
        int settledLength = settled;
        out.putShort((short) utf8.length).put(utf8).putInt(STARTED).putInt(attempt);
        List<Entry> more = new ArrayList<>(finished());
        more.add(new Entry(name, null, attempt));
        return new StepJournal(out.array(), settledLength, Collections.unmodifiableList(more));
    }

    /**
     * The start marker the journal ends in, or null if its last step (if any) is finished.
     *
     * @return the marker, or null
     */
    public Entry marker() {
        return settled == bytes.length ? null : entries.get(entries.size() - 1);
    }

    private void checkMarkerOf(String name) {
        Entry marker = marker();
        if (marker != null && !marker.name().equals(name)) {
            throw new IllegalStateException("the journal ends in the start marker of step '" + marker.name()
                    + "', not of '" + name + "'");
        }
    }

    private List<Entry> finished() {
        return settled == bytes.length ? entries : entries.subList(0, entries.size() - 1);
    }

    private ByteBuffer settledPlus(long more, byte version) {
        long size = (long) settled + more;
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a step journal cannot exceed 2 GiB");
        }
        ByteBuffer out = ByteBuffer.allocate((int) size);
        out.put(bytes, 0, settled);
        out.put(MAGIC.length, version);
        return out;
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
        return (long) settled + 2 + name.getBytes(StandardCharsets.UTF_8).length + 4 + result.length;
    }

    /**
     * The steps, in order: the finished ones, and last the start marker if there is one.
     *
     * @return an unmodifiable list
     */
    public List<Entry> entries() {
        return entries;
    }

    /**
     * How many steps the journal holds, a start marker included.
     *
     * @return the count
     */
    public int size() {
        return entries.size();
    }
}
