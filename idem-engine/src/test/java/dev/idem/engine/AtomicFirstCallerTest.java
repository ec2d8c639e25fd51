package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The first caller of typed work that completes its record itself ({@link AtomicWork}) gets the
 * value the work returned, as it is; only the untyped call and replays get it read back from
 * what was stored (a result with state JSON leaves out, here an ignored field, shows the
 * difference). The untyped first caller gets what the record holds, the same as every replay,
 * even when the work encoded other values on the way; and a record the engine cannot read back
 * is answered with {@link OutcomeUnreadableException}, never with a value.
 */
class AtomicFirstCallerTest {
    /** A receipt whose session handle is never written as JSON. */
    public static final class Receipt {
        public String id;
        @JsonIgnore
        public String session;

        public Receipt() {
        }

        Receipt(String id, String session) {
            this.id = id;
            this.session = session;
        }
    }

    @Test
    void theFirstCallerGetsTheWorksOwnValueAndAReplayWhatWasStored() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        IdempotencyKey key = IdempotencyKey.of("s", "op", "k");
        Receipt made = new Receipt("r-1", "live-session");
        AtomicWork<Receipt> work = (ctx, completion) -> {
            store.complete(ctx.key(), ctx.fencingToken(), completion.encode(made), completion.ttl());
            return made;
        };
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build()) {
            Result<Receipt> first = engine.executeAtomically(key, "{}", Receipt.class, work);
            assertThat(first.value()).isSameAs(made);
            assertThat(first.replayed()).isFalse();
            Result<Receipt> replay = engine.executeAtomically(key, "{}", Receipt.class, work);
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value().id).isEqualTo("r-1");
            assertThat(replay.value().session).isNull();
        }
    }

    @Test
    void theUntypedFirstCallerGetsWhatTheRecordHoldsNotWhatWasEncodedLast() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        IdempotencyKey key = IdempotencyKey.of("s", "op", "untyped");
        AtomicWork<Object> work = (ctx, completion) -> {
            byte[] stored = completion.encode(Map.of("id", "A"));
            completion.encode(Map.of("id", "B"));
            store.complete(ctx.key(), ctx.fencingToken(), stored, completion.ttl());
            return Map.of("id", "B");
        };
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build()) {
            Object first = engine.executeAtomically(key, "{}", Object.class, work).value();
            Object replay = engine.executeAtomically(key, "{}", Object.class, work).value();
            assertThat(first).isEqualTo(Map.of("id", "A")).isEqualTo(replay);
        }
    }

    @Test
    void anUntypedRecordTheEngineCannotReadIsAnsweredUnreadable() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        IdempotencyKey key = IdempotencyKey.of("s", "op", "clear");
        AtomicWork<Object> work = (ctx, completion) -> {
            // Written around the engine's encryption: in clear, which this engine refuses to read.
            store.complete(ctx.key(), ctx.fencingToken(), "S\"A\"".getBytes(StandardCharsets.UTF_8), completion.ttl());
            return "A";
        };
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store)
                .encryptOutcomes(KeyRing.of(KeyVersion.of("k1", new byte[32]))).refuseUnencryptedRecords().build()) {
            assertThatThrownBy(() -> engine.executeAtomically(key, "{}", Object.class, work))
                    .isInstanceOfSatisfying(OutcomeUnreadableException.class,
                            e -> assertThat(e.reason()).isEqualTo(OutcomeUnreadableException.Reason.NOT_ENCRYPTED));
        }
    }
}
