package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.engine.protection.KeyedScopeStore;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Module READMEs' examples that need nothing but the engine and the memory store. */
class ModuleReadmeExamplesTest {
    @Test
    void memoryStore() {
        Clock clock = Clock.fixed(Instant.parse("2026-11-26T00:00:00Z"), ZoneOffset.UTC);
        // tag::memory[]
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.create())                  // system UTC clock
                .build();

        MemoryIdempotencyStore testStore = MemoryIdempotencyStore.builder()
                .clock(clock)                                            // leases and expiry on your clock
                .maxOutcomeBytes(1024 * 1024)                            // default 16 MiB
                .build();
        // end::memory[]
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("op").key("m-1");
        assertThat(engine.call(key, "{}", String.class, ctx -> "done")).isEqualTo("done");
        assertThat(testStore.capabilities().maxOutcomeBytes()).isEqualTo(1024 * 1024);
        IdempotencyEngine onTestStore = IdempotencyEngine.builder().store(testStore).clock(clock)
                .ttl(Duration.ofHours(1)).build();
        assertThat(onTestStore.call(key, "{}", String.class, ctx -> "once")).isEqualTo("once");
        assertThat(testStore.find(key).orElseThrow().createdAt()).isEqualTo(clock.instant());
    }

    record Card(String number, String last4) {
    }

    record Payment(String id, Card card) {
    }

    @Test
    void protectingWhatIsStored() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        String outcomeKey = Base64.getEncoder().encodeToString(new byte[32]);       // openssl rand -base64 32
        String fingerprintKey = Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                12, 13, 14, 15, 16});
        // tag::protection[]
        // outcomeKey, fingerprintKey: Base64 secrets from your configuration, e.g. System.getenv("IDEM_OUTCOME_KEY")
        KeyRing keys = KeyRing.of(KeyVersion.fromBase64("2026-06", outcomeKey));
        KeyRing secrets = KeyRing.of(KeyVersion.fromBase64("fp-1", fingerprintKey));
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(store)
                .encryptOutcomes(keys)                       // AES-256-GCM, outcomes and step journals
                .keyedFingerprints(secrets)                  // HMAC-SHA-256 instead of SHA-256
                .outcomeFilter(OutcomeFilter.removing("/card/number", "/payer/email"))   // what is kept at all
                .build();
        // end::protection[]
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("pay").key("p-1");
        Payment paid = new Payment("p1", new Card("4111111111111111", "1111"));
        assertThat(engine.call(key, "{\"amount\":100}", Payment.class, ctx -> paid)).isEqualTo(paid);
        Payment replay = engine.call(key, "{\"amount\":100}", Payment.class, ctx -> null);
        assertThat(replay.card().number()).isNull();
        assertThat(replay.card().last4()).isEqualTo("1111");
        byte[] stored = store.find(key).orElseThrow().outcome();
        assertThat(new String(stored, StandardCharsets.ISO_8859_1)).doesNotContain("1111").doesNotContain("p1");
    }

    @Test
    void keyedScopes() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        String scopeKey = Base64.getEncoder().encodeToString(new byte[32]);         // openssl rand -base64 32
        // tag::keyed-scopes[]
        // scopeKey: a third secret. The store then holds hmac:scope-1:<MAC> where the scope (who calls) was.
        KeyedScopeStore keyed = KeyedScopeStore.over(store, KeyVersion.fromBase64("scope-1", scopeKey));
        IdempotencyEngine engine = IdempotencyEngine.builder().store(keyed).build();
        // end::keyed-scopes[]
        IdempotencyKey key = IdempotencyKey.inScope("alice@example.com").operation("pay").key("p-1");
        assertThat(engine.call(key, "{\"amount\":100}", String.class, ctx -> "paid")).isEqualTo("paid");
        assertThat(store.find(key)).isEmpty();
        assertThat(store.find(keyed.stored(key)).orElseThrow().key().scope()).startsWith("hmac:scope-1:")
                .doesNotContain("alice");
    }
}
