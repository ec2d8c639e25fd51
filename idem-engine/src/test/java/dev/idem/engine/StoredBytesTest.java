package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * What a caller reads from a {@link StoredBytes}, first-run or replayed: the same bytes by every
 * accessor, a view that no one can change, and value equality.
 */
class StoredBytesTest {
    private static final byte[] BODY = "HTTP/1.1 201 Created\r\n\r\n{\"id\":7}".getBytes(StandardCharsets.UTF_8);

    @Test
    void ofCopiesAndWrapDoesNot() {
        byte[] source = BODY.clone();
        StoredBytes copied = StoredBytes.of(source);
        StoredBytes wrapped = StoredBytes.wrap(source);
        source[0] = 'X';
        assertThat(copied.toByteArray()).isEqualTo(BODY);
        assertThat(wrapped.byteAt(0)).isEqualTo((byte) 'X');
        assertThat(wrapped.length()).isEqualTo(BODY.length);
        assertThatThrownBy(() -> StoredBytes.wrap(null)).isInstanceOf(NullPointerException.class);
        assertThat(StoredBytes.of(new byte[0]).length()).isZero();
        assertThat(StoredBytes.of(new byte[0])).isEqualTo(StoredBytes.wrap(new byte[0]));
    }

    @Test
    void aViewReadsOnlyItsRangeByEveryAccessor() throws IOException {
        byte[] record = new byte[BODY.length + 5];
        System.arraycopy(BODY, 0, record, 3, BODY.length);
        Arrays.fill(record, 0, 3, (byte) '#');
        Arrays.fill(record, 3 + BODY.length, record.length, (byte) '#');
        StoredBytes view = StoredBytes.view(record, 3, BODY.length);

        assertThat(view.length()).isEqualTo(BODY.length);
        assertThat(view.byteAt(0)).isEqualTo(BODY[0]);
        assertThat(view.byteAt(BODY.length - 1)).isEqualTo(BODY[BODY.length - 1]);
        assertThatThrownBy(() -> view.byteAt(BODY.length)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> view.byteAt(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(view.toByteArray()).isEqualTo(BODY);

        ByteBuffer buffer = view.asReadOnlyBuffer();
        assertThat(buffer.isReadOnly()).isTrue();
        assertThat(buffer.position()).isZero();
        assertThat(buffer.remaining()).isEqualTo(BODY.length);
        byte[] read = new byte[buffer.remaining()];
        buffer.get(read);
        assertThat(read).isEqualTo(BODY);
        assertThatThrownBy(() -> view.asReadOnlyBuffer().put(0, (byte) 1)).isInstanceOf(ReadOnlyBufferException.class);

        ByteArrayOutputStream all = new ByteArrayOutputStream();
        view.writeTo(all);
        assertThat(all.toByteArray()).isEqualTo(BODY);
        ByteArrayOutputStream part = new ByteArrayOutputStream();
        view.writeTo(part, 2, 4);
        assertThat(part.toByteArray()).isEqualTo(Arrays.copyOfRange(BODY, 2, 6));
        assertThatThrownBy(() -> view.writeTo(new ByteArrayOutputStream(), BODY.length - 1, 2))
                .isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void equalBytesAreEqualWhereverTheyAreHeld() {
        byte[] record = new byte[BODY.length + 4];
        System.arraycopy(BODY, 0, record, 2, BODY.length);
        StoredBytes view = StoredBytes.view(record, 2, BODY.length);
        StoredBytes own = StoredBytes.of(BODY);

        assertThat(view).isEqualTo(own);
        assertThat(own).isEqualTo(view);
        assertThat(view.hashCode()).isEqualTo(own.hashCode()).isEqualTo(Arrays.hashCode(BODY));
        assertThat(StoredBytes.of(new byte[0]).hashCode()).isEqualTo(Arrays.hashCode(new byte[0]));
        assertThat(StoredBytes.view(record, 3, BODY.length - 1)).isNotEqualTo(own);
        assertThat(StoredBytes.of(Arrays.copyOf(BODY, BODY.length - 1))).isNotEqualTo(own);
        assertThat(own).isNotEqualTo(BODY);
        assertThat(own.toString()).isEqualTo("StoredBytes[" + BODY.length + " bytes]");
    }

    @Test
    void aReplayGivesBackTheBytesTheFirstRunStored() throws IOException {
        IdempotencyKey key = IdempotencyKey.of("tenant", "render", "k-1");
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build()) {
            Result<StoredBytes> first = engine.execute(key, "{}", StoredBytes.class, ctx -> StoredBytes.wrap(BODY));
            Result<StoredBytes> replay = engine.execute(key, "{}", StoredBytes.class,
                    ctx -> StoredBytes.of(new byte[] {1}));
            assertThat(first.replayed()).isFalse();
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(first.value());
            assertThat(replay.value().length()).isEqualTo(BODY.length);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            replay.value().writeTo(out);
            assertThat(out.toByteArray()).isEqualTo(BODY);
        }
    }
}
