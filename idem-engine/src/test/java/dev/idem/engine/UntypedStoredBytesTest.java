package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bytes a work rendered ({@link StoredBytes}) through the untyped call: the first caller and every
 * replay get the same bytes as {@link StoredBytes}, never those bytes parsed as JSON; a JSON
 * outcome read back untyped is still plain JSON values.
 */
class UntypedStoredBytesTest {
    private static final byte[] BODY = "{\"id\":\"A\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void renderedBytesReplayAsBytesAndJsonAsValues() {
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build()) {
            IdempotencyKey bytes = IdempotencyKey.of("s", "op", "bytes");
            Object first = engine.execute(bytes, "{}", ctx -> StoredBytes.of(BODY)).value();
            Object replay = engine.execute(bytes, "{}", ctx -> StoredBytes.of(new byte[] {'x'})).value();
            assertThat(first).isInstanceOf(StoredBytes.class);
            assertThat(replay).isInstanceOf(StoredBytes.class).isEqualTo(first);
            assertThat(((StoredBytes) replay).toByteArray()).isEqualTo(BODY);

            IdempotencyKey json = IdempotencyKey.of("s", "op", "json");
            engine.execute(json, "{}", ctx -> Map.of("id", "A"));
            assertThat(engine.execute(json, "{}", ctx -> Map.of("id", "B")).value()).isEqualTo(Map.of("id", "A"));
        }
    }
}
