package dev.idem.reactor;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.JsonCodec;
import dev.idem.engine.OutcomeNotStoredException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A {@code Flux}'s elements collected for storage, kept only while their JSON (as the engine's
 * codec writes it, inside a JSON array) fits the engine's outcome limit. Past it, or once an
 * element cannot be written as JSON, further elements are counted but not kept, and the
 * result is the engine's "outcome not stored" answer instead of a list that would be refused
 * anyway, after all of it was held in memory.
 */
final class BoundedList<T> {
    private final JsonCodec codec;
    private final int limit;
    private final List<T> kept = new ArrayList<>();
    // '[' and ']' of the array, and the engine's one-byte outcome header.
    private long bytes = 3;
    private long dropped;
    private String refusal;

    BoundedList(JsonCodec codec, int limit) {
        this.codec = codec;
        this.limit = limit;
    }

    void add(T element) {
        if (refusal != null) {
            dropped++;
            return;
        }
        try {
            bytes += codec.writeValue(element).length + (kept.isEmpty() ? 0 : 1);
        } catch (IOException e) {
            refusal = "element " + kept.size() + " of the Flux cannot be written as JSON: " + e.getMessage();
            dropped++;
            kept.clear();
            return;
        }
        if (bytes > limit) {
            refusal = "the Flux's elements are over " + limit + " bytes of JSON by element " + kept.size()
                    + ", over the limit (IdempotencyEngineBuilder.maxOutcomeBytes); the rest was not kept";
            dropped++;
            kept.clear();
            return;
        }
        kept.add(element);
    }

    /** The list to store, or the "not stored" answer (the engine stores its marker). */
    Mono<List<T>> result(IdempotencyKey key) {
        if (refusal == null) {
            return Mono.just(List.copyOf(kept));
        }
        return Mono.error(new OutcomeNotStoredException(key, refusal + " (" + dropped + " elements not kept)",
                false, null));
    }
}
