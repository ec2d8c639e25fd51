package dev.idem.readme;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.util.UUID;

/** The main README's first example, a whole program: {@link HelloTest} runs it. */
// tag::hello[]
public class Hello {
    record ChargeRequest(String customer, long amountCents) {}
    record Charge(String id, long amountCents) {}

    public static void main(String[] args) {
        // The store keeps one record per key: memory here; your database, Redis or DynamoDB in production.
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        // The engine runs the work of each key once, over that store.
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build()) {
            // The key: who asks (the scope), for what (the operation), and the client's token for this intent.
            IdempotencyKey key = IdempotencyKey.inScope("customer-42").operation("create-charge")
                    .key("8e03978e-40d5-43e8-bc93-6894a57f9324");
            ChargeRequest request = new ChargeRequest("customer-42", 1_000);

            // The call: the first one runs the work; a retry with the same key and request replays its answer.
            Charge first = engine.call(key, request, Charge.class, ctx -> charge(request));
            Charge retry = engine.call(key, request, Charge.class, ctx -> charge(request));
            System.out.println(first.equals(retry) + ": " + retry);   // true: the card was charged once
        }
    }

    /** Your side effect: here it makes a new charge each time it runs. */
    static Charge charge(ChargeRequest request) {
        return new Charge("ch_" + UUID.randomUUID(), request.amountCents());
    }
}
// end::hello[]
