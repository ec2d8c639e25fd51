package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.engine.protection.KeyedScopeStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link KeyedScopeStore}: the backend holds a MAC where the scope was, the engine sees its own
 * key, the non-blocking form is keyed alike, and work bound to the wrapped store (which would
 * complete the record under the scope in clear) is refused before anything is claimed.
 */
class KeyedScopeStoreTest {
    private static final KeyVersion SECRET = KeyVersion.of("scope-1",
            "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private static final String SCOPE = "CN=Alice Example,O=Example Corp,C=DE";
    private static final IdempotencyKey KEY = IdempotencyKey.of(SCOPE, "charge", "k-1");

    private final MemoryIdempotencyStore backend = MemoryIdempotencyStore.create();
    private final KeyedScopeStore keyed = KeyedScopeStore.over(backend, SECRET);

    @Test
    void theBackendHoldsAMacWhereTheScopeWasAndTheEngineSeesItsOwnKey() {
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(keyed).build()) {
            Result<String> first = engine.execute(KEY, "{\"amount\":1}", String.class, ctx -> "charged");
            Result<String> replay = engine.execute(KEY, "{\"amount\":1}", String.class, ctx -> "again");
            assertThat(replay.replayed()).isTrue();
            assertThat(replay.value()).isEqualTo(first.value());
        }
        IdempotencyKey stored = keyed.stored(KEY);
        assertThat(stored.scope()).startsWith("hmac:scope-1:").hasSize("hmac:scope-1:".length() + 43)
                .doesNotContain("Alice");
        assertThat(stored.operation()).isEqualTo("charge");
        assertThat(stored.key()).isEqualTo("k-1");
        assertThat(backend.find(KEY)).as("nothing under the scope in clear").isEmpty();
        assertThat(backend.find(stored)).isPresent();
        assertThat(keyed.find(KEY).orElseThrow().key()).isEqualTo(KEY);
        // The same scope under another secret is another key space; other scopes other MACs.
        assertThat(KeyedScopeStore.over(backend, KeyVersion.of("scope-2", new byte[32])).stored(KEY))
                .isNotEqualTo(stored);
        assertThat(keyed.stored(IdempotencyKey.of(SCOPE + " ", "charge", "k-1"))).isNotEqualTo(stored);
    }

    @Test
    void theNonBlockingFormIsKeyedAlike() throws Exception {
        KeyedScopeStore withForm = KeyedScopeStore.over(new CompletedForm(backend), SECRET);
        NonBlockingStore form = withForm.nonBlocking().orElseThrow();
        ClaimResult claimed = form.claim(KEY, new byte[] {1}, 7, Duration.ofMinutes(1), Duration.ofHours(1))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(claimed.record().key()).isEqualTo(KEY);
        assertThat(form.complete(KEY, 7, new byte[] {'S', '1'}, Duration.ofHours(1)).toCompletableFuture()
                .get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(backend.find(withForm.stored(KEY)).orElseThrow().outcome()).containsExactly('S', '1');
        assertThat(keyed.find(KEY)).as("the blocking view finds what the form wrote").isPresent();
        assertThat(form.find(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS).orElseThrow().key())
                .isEqualTo(KEY);
    }

    @Test
    void workBoundToTheWrappedStoreIsRefusedBeforeAnythingIsClaimed() {
        AtomicWork<String> bound = new AtomicWork<>() {
            @Override
            public String executeAndComplete(ExecutionContext context, Completion completion) {
                throw new AssertionError("never run");
            }

            @Override
            public IdempotencyStore store() {
                return backend;
            }
        };
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(keyed).build()) {
            assertThatThrownBy(() -> engine.executeAtomically(KEY, "{}", String.class, bound))
                    .isInstanceOf(ForeignStoreWorkException.class);
        }
        assertThat(backend.find(keyed.stored(KEY))).isEmpty();
    }
}
