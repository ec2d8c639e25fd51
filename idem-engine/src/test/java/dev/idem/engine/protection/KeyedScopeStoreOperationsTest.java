package dev.idem.engine.protection;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.engine.CompletedForm;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * Every store operation of {@link KeyedScopeStore}, blocking and non-blocking, reaches the
 * wrapped store under the keyed scope and gives back the wrapped store's own answer (a stale
 * token's "no" stays "no", so fencing holds through the decorator); the keyed scope is exactly
 * the documented HMAC (so records stay addressable by a later version or another tool holding
 * the secret); and its text names the secret's id, never the secret.
 */
class KeyedScopeStoreOperationsTest {
    private static final byte[] SECRET_BYTES = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final KeyVersion SECRET = KeyVersion.of("scope-1", SECRET_BYTES);
    private static final IdempotencyKey KEY = IdempotencyKey.of("tenant-42", "charge", "k-1");
    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final Duration TTL = Duration.ofHours(1);

    private final MemoryIdempotencyStore backend = MemoryIdempotencyStore.create();

    @Test
    void theKeyedScopeIsTheDocumentedMac() throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET_BYTES, "HmacSHA256"));
        mac.update("idem-scope/v1\0".getBytes(StandardCharsets.US_ASCII));
        String tag = Base64.getUrlEncoder().withoutPadding()
                .encodeToString(mac.doFinal(KEY.scope().getBytes(StandardCharsets.UTF_8)));
        KeyedScopeStore keyed = KeyedScopeStore.over(backend, SECRET);
        assertThat(keyed.stored(KEY)).isEqualTo(IdempotencyKey.of("hmac:scope-1:" + tag, "charge", "k-1"));
        // The same scope twice on one thread gives the same MAC (the thread's MAC starts afresh).
        assertThat(keyed.stored(KEY)).isEqualTo(keyed.stored(KEY));
        assertThat(keyed.toString()).isEqualTo("KeyedScopeStore[scope-1](" + backend + ")")
                .doesNotContain(new String(SECRET_BYTES, StandardCharsets.US_ASCII));
    }

    @Test
    void blockingOperationsGiveTheWrappedStoresAnswersUnderTheKeyedScope() {
        KeyedScopeStore keyed = KeyedScopeStore.over(backend, SECRET);
        IdempotencyKey stored = keyed.stored(KEY);
        assertThat(keyed.claim(KEY, new byte[] {1}, 7, LEASE, TTL).record().key()).isEqualTo(KEY);
        assertThat(keyed.checkpoint(KEY, 8, new byte[] {'I'})).isFalse();
        assertThat(keyed.checkpoint(KEY, 7, new byte[] {'I', '1'})).isTrue();
        assertThat(backend.find(stored).orElseThrow().journal()).containsExactly('I', '1');
        assertThat(keyed.extendLease(KEY, 8, LEASE)).isEmpty();
        assertThat(keyed.extendLease(KEY, 7, LEASE)).isPresent();
        assertThat(keyed.release(KEY, 8)).isFalse();
        assertThat(keyed.release(KEY, 7)).isTrue();
        assertThat(keyed.claim(KEY, new byte[] {1}, 9, LEASE, TTL).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
        assertThat(keyed.complete(KEY, 7, new byte[] {'S'}, TTL)).isFalse();
        assertThat(backend.find(stored).orElseThrow().outcome()).isNull();
        assertThat(keyed.complete(KEY, 9, new byte[] {'S', '2'}, TTL)).isTrue();
        assertThat(backend.find(stored).orElseThrow().outcome()).containsExactly('S', '2');
        assertThat(backend.find(KEY)).isEmpty();
    }

    @Test
    void nonBlockingOperationsGiveTheWrappedFormsAnswersUnderTheKeyedScope() throws Exception {
        // An unusual width, so the test sees the wrapper pass the wrapped form's own.
        KeyedScopeStore keyed = KeyedScopeStore.over(new CompletedForm(backend, 17), SECRET);
        NonBlockingStore form = keyed.nonBlocking().orElseThrow();
        IdempotencyKey stored = keyed.stored(KEY);
        assertThat(form.maxCallsInFlight()).isEqualTo(17);
        assertThat(get(form.claim(KEY, new byte[] {1}, 7, LEASE, TTL)).record().key()).isEqualTo(KEY);
        assertThat(get(form.checkpoint(KEY, 8, new byte[] {'I'}))).isFalse();
        assertThat(get(form.checkpoint(KEY, 7, new byte[] {'I', '1'}))).isTrue();
        assertThat(backend.find(stored).orElseThrow().journal()).containsExactly('I', '1');
        assertThat(get(form.extendLease(KEY, 8, LEASE))).isEmpty();
        assertThat(get(form.extendLease(KEY, 7, LEASE))).isPresent();
        assertThat(get(form.release(KEY, 8))).isFalse();
        assertThat(get(form.release(KEY, 7))).isTrue();
        assertThat(get(form.claim(KEY, new byte[] {1}, 9, LEASE, TTL)).status()).isEqualTo(ClaimResult.Status.ACQUIRED);
        assertThat(get(form.complete(KEY, 7, new byte[] {'S'}, TTL))).isFalse();
        assertThat(get(form.complete(KEY, 9, new byte[] {'S', '2'}, TTL))).isTrue();
        assertThat(get(form.find(KEY)).orElseThrow().outcome()).containsExactly('S', '2');
        assertThat(get(form.find(KEY)).orElseThrow().key()).isEqualTo(KEY);
        assertThat(backend.find(KEY)).isEmpty();
        assertThat(KeyedScopeStore.over(backend, SECRET).nonBlocking()).isEmpty();
    }

    private static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
