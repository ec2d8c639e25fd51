package dev.idem.engine.internal.json;

import dev.idem.api.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The canonicalizer's container table: the structure of a document on a {@link CanonicalTape},
 * as int arrays reused from call to call. Containers are numbered in the order they open (pre-order), with their byte range
 * in the token buffer and the number of the first container after them. While a container
 * is open its kids (an object's members; an array's elements only when something below it
 * may be excluded) wait on a stack as byte ranges. When it closes, an object whose members
 * came out of order, or a container that lost a kid to an exclusion, is put right: at once
 * and in place when it holds no container (most objects: each byte moves at most once),
 * otherwise by keeping its kids' ranges in output order for {@link #emit}. Every other
 * container is already canonical where it stands.
 *
 * <p>{@link #emit} then copies the token buffer once, left to right, jumping into each such
 * container to write its kids in their order: every byte is copied once and every container
 * visited once, so the cost is linear whatever the depth.
 */
final class ContainerTable {
    private static final byte OBJECT = 1;
    private static final byte UNSORTED = 2;
    private static final byte EXCLUDING = 4;
    private static final byte PLAIN = 1;
    private static final byte EXCLUDED = 2;
    private static final int INSERTION_SORT_MAX = 16;

    private ByteSink tokens = new ByteSink(16);
    private final ByteSink out = new ByteSink(256);
    private boolean rewrite;

    // Containers in pre-order: byte range, first container after the subtree, and the kids
    // to write in order (cFirstKid < 0: copy as it stands).
    private int[] cStart = new int[16];
    private int[] cEnd = new int[16];
    private int[] cNext = new int[16];
    private int[] cFirstKid = new int[16];
    private int[] cKidCount = new int[16];
    private int containers;

    // Open containers, innermost last.
    private int[] oContainer = new int[16];
    private int[] oBase = new int[16];
    private int[] oIndex = new int[16];
    private byte[] oFlags = new byte[16];
    private PointerSet[] oPointers = new PointerSet[16];
    private int depth;

    // ContainerTable of the open containers: byte range (an object member's starts at its name, whose
    // closing quote is at mNameEnd) and the first container that may lie inside.
    private int[] mStart = new int[64];
    private int[] mNameEnd = new int[64];
    private int[] mEnd = new int[64];
    private int[] mFirst = new int[64];
    private byte[] mFlags = new byte[64];
    // The first eight bytes of a plain name, big-endian and zero-padded: most comparisons end here.
    private long[] mKey = new long[64];
    private int pending;

    // ContainerTable of the containers to rewrite, in output order.
    private int[] kStart = new int[16];
    private int[] kEnd = new int[16];
    private int[] kFirst = new int[16];
    private int kids;

    private int[] order = new int[16];
    private int[] merge = new int[16];
    private byte[] scratch = new byte[256];

    // The emission stack, one frame per entry. A SPAN frame copies tokens [spanFrom, spanTo),
    // stopping at the rewritten containers from spanNextContainer on; a CONTAINER frame writes
    // the kids of container frameContainer in order, frameNextKid being the next to write.
    private static final byte SPAN = 0;
    private static final byte CONTAINER = 1;
    private byte[] frameKind = new byte[16];
    private int[] spanFrom = new int[16];
    private int[] spanTo = new int[16];
    private int[] spanNextContainer = new int[16];
    private int[] frameContainer = new int[16];
    private int[] frameNextKid = new int[16];

    void reset(ByteSink tokenBuffer) {
        tokens = tokenBuffer;
        rewrite = false;
        containers = 0;
        depth = 0;
        pending = 0;
        kids = 0;
    }

    /** Drops references to the caller's pointer sets (an exception may leave some open). */
    void release() {
        Arrays.fill(oPointers, 0, Math.min(oPointers.length, depth + 1), null);
    }

    long retainedBytes() {
        return out.buf.length + scratch.length + 4L * (5L * cStart.length + 4L * oContainer.length + 4L * mStart.length
                + 3L * kStart.length + order.length + merge.length + 5L * spanFrom.length) + 8L * mKey.length + mFlags.length
                + frameKind.length;
    }

    boolean rewrites() {
        return rewrite;
    }

    int depth() {
        return depth;
    }

    boolean inObject() {
        return (oFlags[depth - 1] & OBJECT) != 0;
    }

    void open(boolean object, PointerSet pointers) {
        int c = containers++;
        if (c == cStart.length) {
            int n = c * 2;
            cStart = Arrays.copyOf(cStart, n);
            cEnd = Arrays.copyOf(cEnd, n);
            cNext = Arrays.copyOf(cNext, n);
            cFirstKid = Arrays.copyOf(cFirstKid, n);
            cKidCount = Arrays.copyOf(cKidCount, n);
        }
        cStart[c] = tokens.size;
        cFirstKid[c] = -1;
        tokens.write(object ? '{' : '[');
        int d = depth++;
        if (d == oContainer.length) {
            int n = d * 2;
            oContainer = Arrays.copyOf(oContainer, n);
            oBase = Arrays.copyOf(oBase, n);
            oIndex = Arrays.copyOf(oIndex, n);
            oFlags = Arrays.copyOf(oFlags, n);
            oPointers = Arrays.copyOf(oPointers, n);
        }
        oContainer[d] = c;
        oBase[d] = pending;
        oIndex[d] = 0;
        oFlags[d] = object ? OBJECT : 0;
        oPointers[d] = pointers;
    }

    /**
     * Records the member whose name was just written at {@code tokens[start, size)} in the
     * innermost object; returns what is excluded below its value (null: nothing).
     */
    PointerSet member(int start, boolean plain) {
        int d = depth - 1;
        int m = push(start, plain ? PLAIN : 0);
        int nameEnd = tokens.size - 1;
        mNameEnd[m] = nameEnd;
        if (plain) {
            // Plain names hold no byte below 0x20, so the zero padding sorts a prefix first.
            byte[] t = tokens.buf;
            long key = 0;
            for (int i = start + 1, stop = start + 9; i < stop; i++) {
                key = key << 8 | (i < nameEnd ? t[i] & 0xFF : 0);
            }
            mKey[m] = key;
        }
        if (m > oBase[d]) {
            int cmp = compare(m - 1, m);
            if (cmp == 0) {
                throw duplicate(m);
            }
            if (cmp > 0) {
                oFlags[d] |= UNSORTED;
            }
        }
        PointerSet parent = oPointers[d];
        if (parent == null) {
            return null;
        }
        PointerSet below = parent.child(tokens.buf, start + 1, tokens.size - 1);
        return below != null && below.isTerminal() ? exclude(d, m) : below;
    }

    /** Starts the next element of the innermost array; returns what is excluded below it. */
    PointerSet element() {
        int d = depth - 1;
        PointerSet parent = oPointers[d];
        if (parent == null) {
            return null;
        }
        int m = push(tokens.size, 0);
        PointerSet below = parent.child(oIndex[d]++);
        return below != null && below.isTerminal() ? exclude(d, m) : below;
    }

    private PointerSet exclude(int d, int m) {
        mFlags[m] |= EXCLUDED;
        oFlags[d] |= EXCLUDING;
        return null;
    }

    /** The value of the innermost container's current kid ends here. */
    void finishKid() {
        int d = depth - 1;
        if ((oFlags[d] & OBJECT) != 0 || oPointers[d] != null) {
            mEnd[pending - 1] = tokens.size;
        }
    }

    void close() {
        int d = --depth;
        int c = oContainer[d];
        byte flags = oFlags[d];
        int base = oBase[d];
        int n = pending - base;
        if ((flags & (UNSORTED | EXCLUDING)) != 0) {
            if (order.length < n) {
                order = new int[Math.max(n, order.length * 2)];
            }
            for (int i = 0; i < n; i++) {
                order[i] = base + i;
            }
            if ((flags & UNSORTED) != 0) {
                sort(n);
            }
            if (containers == c + 1) {
                // No container inside: put the kids in order where they stand, now. Each byte
                // is moved this way at most once (only by its innermost container).
                rewriteInPlace(c, n);
            } else {
                rewrite = true;
                cFirstKid[c] = kids;
                for (int i = 0; i < n; i++) {
                    int m = order[i];
                    if ((mFlags[m] & EXCLUDED) == 0) {
                        keep(m);
                    }
                }
                cKidCount[c] = kids - cFirstKid[c];
            }
        }
        tokens.write((flags & OBJECT) != 0 ? '}' : ']');
        cEnd[c] = tokens.size;
        cNext[c] = containers;
        pending = base;
        oPointers[d] = null;
    }

    // The container's kids, all scalars, rewritten in output order over its own bytes.
    private void rewriteInPlace(int c, int n) {
        byte[] t = tokens.buf;
        int from = cStart[c] + 1;
        int length = tokens.size - from;
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        System.arraycopy(t, from, scratch, 0, length);
        int w = from;
        for (int i = 0; i < n; i++) {
            int m = order[i];
            if ((mFlags[m] & EXCLUDED) != 0) {
                continue;
            }
            if (w > from) {
                t[w++] = ',';
            }
            int k = mEnd[m] - mStart[m];
            System.arraycopy(scratch, mStart[m] - from, t, w, k);
            w += k;
        }
        tokens.size = w;
    }

    private int push(int start, int flags) {
        int m = pending++;
        if (m == mStart.length) {
            int n = m * 2;
            mStart = Arrays.copyOf(mStart, n);
            mNameEnd = Arrays.copyOf(mNameEnd, n);
            mEnd = Arrays.copyOf(mEnd, n);
            mFirst = Arrays.copyOf(mFirst, n);
            mFlags = Arrays.copyOf(mFlags, n);
            mKey = Arrays.copyOf(mKey, n);
        }
        mStart[m] = start;
        mFirst[m] = containers;
        mFlags[m] = (byte) flags;
        return m;
    }

    private void keep(int m) {
        int k = kids++;
        if (k == kStart.length) {
            int n = k * 2;
            kStart = Arrays.copyOf(kStart, n);
            kEnd = Arrays.copyOf(kEnd, n);
            kFirst = Arrays.copyOf(kFirst, n);
        }
        kStart[k] = mStart[m];
        kEnd[k] = mEnd[m];
        kFirst[k] = mFirst[m];
    }

    // Sorts order[0, n) by member name, refusing duplicates: an insertion sort meets every
    // duplicate where it stops; the merge sort's result is checked pairwise.
    private void sort(int n) {
        int[] o = order;
        if (n <= INSERTION_SORT_MAX) {
            for (int i = 1; i < n; i++) {
                int m = o[i];
                int j = i - 1;
                int cmp;
                while (j >= 0 && (cmp = compare(o[j], m)) >= 0) {
                    if (cmp == 0) {
                        throw duplicate(m);
                    }
                    o[j + 1] = o[j];
                    j--;
                }
                o[j + 1] = m;
            }
            return;
        }
        if (merge.length < n) {
            merge = new int[Math.max(n, merge.length * 2)];
        }
        int[] from = o;
        int[] to = merge;
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                for (int k = lo; k < hi; k++) {
                    to[k] = i < mid && (j >= hi || compare(from[i], from[j]) <= 0) ? from[i++] : from[j++];
                }
            }
            int[] t = from;
            from = to;
            to = t;
        }
        if (from != o) {
            System.arraycopy(from, 0, o, 0, n);
        }
        for (int i = 1; i < n; i++) {
            if (compare(o[i - 1], o[i]) == 0) {
                throw duplicate(o[i]);
            }
        }
    }

    private int compare(int a, int b) {
        byte[] t = tokens.buf;
        int as = mStart[a] + 1;
        int bs = mStart[b] + 1;
        if ((mFlags[a] & mFlags[b] & PLAIN) != 0) {
            int byKey = Long.compareUnsigned(mKey[a], mKey[b]);
            if (byKey != 0) {
                return byKey;
            }
            int la = mNameEnd[a] - as;
            int lb = mNameEnd[b] - bs;
            if (Math.min(la, lb) >= 16) {
                return Arrays.compareUnsigned(t, as, mNameEnd[a], t, bs, mNameEnd[b]);
            }
            // Short names (most) compare faster in a loop than through the intrinsic's setup.
            for (int i = 0, n = Math.min(la, lb); i < n; i++) {
                int x = t[as + i] & 0xFF;
                int y = t[bs + i] & 0xFF;
                if (x != y) {
                    return x - y;
                }
            }
            return la - lb;
        }
        return Utf8.compareUtf16(t, as, mNameEnd[a], bs, mNameEnd[b]);
    }

    private InvalidRequestException duplicate(int m) {
        int from = mStart[m];
        int length = mNameEnd[m] + 1 - from;
        String name = new String(tokens.buf, from, Math.min(length, 64), StandardCharsets.UTF_8);
        return new InvalidRequestException("malformed request JSON: duplicate member name " + name
                + (length > 64 ? "..." : ""));
    }

    /** Writes the document with every recorded container's kids in order; returns the buffer. */
    ByteSink emit() {
        byte[] t = tokens.buf;
        out.size = 0;
        out.ensure(tokens.size);
        byte[] o = out.buf;
        int w = 0;
        int sp = pushSpan(0, 0, tokens.size, 0);
        while (sp > 0) {
            int f = sp - 1;
            if (frameKind[f] == SPAN) {
                int from = spanFrom[f];
                int to = spanTo[f];
                int c = spanNextContainer[f];
                while (c < containers && cStart[c] < to && cFirstKid[c] < 0) {
                    c++;
                }
                if (c < containers && cStart[c] < to) {
                    int at = cStart[c];
                    w = copy(t, from, o, w, at - from);
                    spanFrom[f] = cEnd[c];
                    spanNextContainer[f] = cNext[c];
                    sp = pushContainer(sp, c);
                } else {
                    w = copy(t, from, o, w, to - from);
                    sp--;
                }
                continue;
            }
            int c = frameContainer[f];
            int k = frameNextKid[f];
            if (k == 0) {
                o[w++] = t[cStart[c]];
            }
            if (k == cKidCount[c]) {
                o[w++] = t[cEnd[c] - 1];
                sp--;
                continue;
            }
            if (k > 0) {
                o[w++] = ',';
            }
            frameNextKid[f] = k + 1;
            int kid = cFirstKid[c] + k;
            sp = pushSpan(sp, kStart[kid], kEnd[kid], kFirst[kid]);
        }
        out.size = w;
        return out;
    }

    // Most spans are a member of a few bytes, where a loop beats arraycopy's setup.
    private static int copy(byte[] from, int at, byte[] to, int w, int length) {
        if (length < 16) {
            for (int i = 0; i < length; i++) {
                to[w + i] = from[at + i];
            }
        } else {
            System.arraycopy(from, at, to, w, length);
        }
        return w + length;
    }

    private int pushSpan(int sp, int from, int to, int nextContainer) {
        growFrames(sp);
        frameKind[sp] = SPAN;
        spanFrom[sp] = from;
        spanTo[sp] = to;
        spanNextContainer[sp] = nextContainer;
        return sp + 1;
    }

    private int pushContainer(int sp, int container) {
        growFrames(sp);
        frameKind[sp] = CONTAINER;
        frameContainer[sp] = container;
        frameNextKid[sp] = 0;
        return sp + 1;
    }

    private void growFrames(int sp) {
        if (sp == frameKind.length) {
            int n = sp * 2;
            frameKind = Arrays.copyOf(frameKind, n);
            spanFrom = Arrays.copyOf(spanFrom, n);
            spanTo = Arrays.copyOf(spanTo, n);
            spanNextContainer = Arrays.copyOf(spanNextContainer, n);
            frameContainer = Arrays.copyOf(frameContainer, n);
            frameNextKid = Arrays.copyOf(frameNextKid, n);
        }
    }
}
