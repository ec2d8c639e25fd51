package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.KeyReusedException;
import dev.idem.api.LeaseLostException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.time.Ticker;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.Result;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's near cache ({@link IdempotencyEngineBuilder#nearCache(int)}) over the store
 * under test: a completed record is replayed from the cache without a round trip, and the
 * cache never answers what the store would not: never a record in progress (nor one that was
 * in progress when it was seen, then released or completed), never a record past its TTL
 * (measured by the store's clock, even when the store's answers take a fifth of the TTL to
 * arrive), never a record of another scope or operation, never another request's outcome.
 *
 * <p>One engine has the cache ({@code cached}), another, on the fixture's other store
 * ({@code other}), is the rest of the fleet. Time is simulated: the store's clock moves through
 * the fixture and the engines' ticker with it, and a store call of the cached engine may be
 * given a transit time (the clocks move on after the store answered, before the engine gets
 * the answer), so a cache that counts a record's remaining life from when the answer arrived
 * instead of from when the question left outlives the record. An adapter's test extends this
 * class and implements {@link #createFixture()}; the fixture's clock must be simulated.
 * Single-threaded and deterministic.
 */
@Timeout(120)
public abstract class NearCacheContract {
    private static final Map<String, Object> REQUEST = Map.of("order", "o-1", "amount", 1250);

    /** The fixture for the current test. */
    protected StoreFixture fixture;
    private final AtomicLong nanos = new AtomicLong(-Duration.ofDays(1).toNanos());
    private final AtomicInteger claims = new AtomicInteger();
    private Duration transit = Duration.ZERO;
    private IdempotencyEngine cached;
    private IdempotencyEngine other;
    private String scope;

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fresh fixture
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    @BeforeEach
    final void setUpNearCache() throws Exception {
        fixture = createFixture();
        if (!fixture.clockIsSimulated()) {
            throw new IllegalStateException("NearCacheContract lets records expire: the fixture's clock must be"
                    + " simulated (StoreFixture.clockIsSimulated())");
        }
        scope = "near-" + UUID.randomUUID();
        cached = cachedEngine(new InTransit(fixture.store()), nanos::get);
        other = IdempotencyEngine.builder().store(fixture.otherStore()).lease(fixture.lease()).ttl(fixture.ttl())
                .ticker(nanos::get).build();
    }

    /** The engine with the near cache, on {@code store} and {@code ticker}; the kit's own tests put broken caches here. */
    IdempotencyEngine cachedEngine(IdempotencyStore store, Ticker ticker) {
        return IdempotencyEngine.builder().store(store).lease(fixture.lease()).ttl(fixture.ttl()).ticker(ticker)
                .nearCache(100).build();
    }

    @AfterEach
    final void tearDownNearCache() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    /** Counts the cached engine's claims and lets {@link #transit} pass after each answer. */
    private final class InTransit extends ForwardingIdempotencyStore {
        InTransit(IdempotencyStore delegate) {
            super(delegate);
        }

        @Override
        protected <T> T around(Operation operation, IdempotencyKey key, Supplier<T> call) {
            if (operation == Operation.CLAIM) {
                claims.incrementAndGet();
            }
            T answer = call.get();
            if (operation == Operation.CLAIM || operation == Operation.COMPLETE) {
                advance(transit);
            }
            return answer;
        }
    }

    private void advance(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            fixture.advance(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while moving the store's clock", e);
        }
        nanos.addAndGet(d.toNanos());
    }

    private IdempotencyKey key(String name) {
        return IdempotencyKey.of(scope, "charge", name);
    }

    private static Result<String> run(IdempotencyEngine engine, IdempotencyKey key, String value) {
        return engine.execute(key, REQUEST, String.class, ctx -> value);
    }

    @Test
    void aCompletedRecordIsReplayedFromTheCacheWithoutAClaim() {
        IdempotencyKey mine = key("mine");
        assertThat(run(cached, mine, "v1").replayed()).isFalse();
        IdempotencyKey theirs = key("theirs");
        run(other, theirs, "t1");
        assertThat(run(cached, theirs, "never").value()).isEqualTo("t1");

        int before = claims.get();
        for (int i = 0; i < 3; i++) {
            Result<String> again = run(cached, mine, "never");
            assertThat(again.replayed()).isTrue();
            assertThat(again.value()).isEqualTo("v1");
            Result<String> theirsAgain = run(cached, theirs, "never");
            assertThat(theirsAgain.replayed()).isTrue();
            assertThat(theirsAgain.value()).isEqualTo("t1");
        }
        assertThat(claims.get() - before).as("claims sent for replays of cached records").isZero();
    }

    @Test
    void aRecordInProgressIsNeverServedNorRememberedAfterItEnds() {
        IdempotencyKey completes = key("completes");
        run(other, completes, ctx -> {
            assertThatThrownBy(() -> run(cached, completes, "never")).isInstanceOf(RequestInProgressException.class);
            assertThatThrownBy(() -> run(cached, completes, "never")).isInstanceOf(RequestInProgressException.class);
            return "v1";
        });
        Result<String> replay = run(cached, completes, "never");
        assertThat(replay.replayed()).as("a replay of the record completed meanwhile").isTrue();
        assertThat(replay.value()).isEqualTo("v1");

        IdempotencyKey released = key("released");
        assertThatThrownBy(() -> run(other, released, ctx -> {
            assertThatThrownBy(() -> run(cached, released, "never")).isInstanceOf(RequestInProgressException.class);
            throw new IllegalStateException("transient (simulated)");
        })).isInstanceOf(IllegalStateException.class);
        Result<String> retry = run(cached, released, "v2");
        assertThat(retry.replayed()).as("the retry of a released key runs").isFalse();
        assertThat(retry.value()).isEqualTo("v2");
    }

    private static Result<String> run(IdempotencyEngine engine, IdempotencyKey key, dev.idem.engine.Work<String> w) {
        return engine.execute(key, REQUEST, String.class, w);
    }

    @Test
    void aRecordPastItsTtlIsNeverServedEvenWhenAnswersTakeTimeToArrive() {
        Duration ttl = fixture.ttl();
        transit = ttl.dividedBy(5);
        Duration slack = fixture.slack();

        // Completed by this engine: the record expires a TTL after the store wrote it, which is
        // a transit time before the engine learns that it did.
        IdempotencyKey mine = key("mine");
        assertThat(run(cached, mine, "v1").replayed()).isFalse();
        advance(ttl.minus(transit).plus(slack));
        Result<String> afterExpiry = run(cached, mine, "v2");
        assertThat(afterExpiry.replayed()).as("a record past its TTL replayed (near cache outlived it)").isFalse();
        assertThat(afterExpiry.value()).isEqualTo("v2");

        // Completed elsewhere, cached from a replay half-way through its life.
        IdempotencyKey theirs = key("theirs");
        transit = Duration.ZERO;
        run(other, theirs, "t1");
        transit = ttl.dividedBy(5);
        advance(ttl.dividedBy(2));
        assertThat(run(cached, theirs, "never").value()).isEqualTo("t1");
        advance(ttl.dividedBy(2).minus(transit).plus(slack));
        Result<String> theirsAfterExpiry = run(cached, theirs, "t2");
        assertThat(theirsAfterExpiry.replayed()).as("a record past its TTL replayed (near cache outlived it)")
                .isFalse();
        assertThat(theirsAfterExpiry.value()).isEqualTo("t2");
    }

    /**
     * A cached record dies when its record does, however often it is read meanwhile: an entry that
     * lives "a TTL since it was last read" would serve a record long after the store dropped it.
     * Read at two fifths and four fifths of its life, completed by this engine and by another.
     */
    @Test
    void aCachedRecordDiesAtItsTtlHoweverOftenItIsRead() {
        Duration ttl = fixture.ttl();
        Duration slack = fixture.slack();
        IdempotencyKey mine = key("read-often-mine");
        IdempotencyKey theirs = key("read-often-theirs");
        assertThat(run(cached, mine, "v1").replayed()).isFalse();
        run(other, theirs, "t1");
        for (int i = 0; i < 2; i++) {
            advance(ttl.multipliedBy(2).dividedBy(5));
            assertThat(run(cached, mine, "never").value()).as("a read of a live record").isEqualTo("v1");
            assertThat(run(cached, theirs, "never").value()).as("a read of a live record").isEqualTo("t1");
        }
        advance(ttl.dividedBy(5).plus(slack));
        Result<String> mineAfter = run(cached, mine, "v2");
        assertThat(mineAfter.replayed()).as("a record past its TTL, read often before, replayed (an entry that lives"
                + " a TTL from its last read outlives its record)").isFalse();
        assertThat(mineAfter.value()).isEqualTo("v2");
        Result<String> theirsAfter = run(cached, theirs, "t2");
        assertThat(theirsAfter.replayed()).as("a record past its TTL, read often before, replayed (an entry that"
                + " lives a TTL from its last read outlives its record)").isFalse();
        assertThat(theirsAfter.value()).isEqualTo("t2");
    }

    /**
     * The cache takes a success only once the store acknowledged its completion: a holder whose
     * lease was taken over while its work ran gets its completion refused, and from then on every
     * call of that engine answers what the store holds (the taker's value), never its own.
     */
    @Test
    void aHolderTakenOverNeverAnswersItsOwnValueFromTheCache() {
        IdempotencyKey key = key("taken-over");
        assertThatThrownBy(() -> run(cached, key, ctx -> {
            advance(fixture.lease().plus(fixture.slack()));
            Result<String> taker = run(other, key, "theirs");
            assertThat(taker.replayed()).as("the taker ran the work").isFalse();
            return "mine";
        })).as("the completion of a holder whose lease was taken over").isInstanceOf(LeaseLostException.class);
        for (int i = 0; i < 3; i++) {
            Result<String> after = run(cached, key, "never");
            assertThat(after.value()).as("what the taken-over engine answers after its completion was refused (the"
                    + " store holds the taker's)").isEqualTo("theirs");
            assertThat(after.replayed()).isTrue();
        }
        assertThat(run(other, key, "never").value()).isEqualTo("theirs");
    }

    @Test
    void aRecordIsNeverServedForAnotherScopeOrOperation() {
        // Completed elsewhere and replayed here, so whatever caches answers has seen this one.
        IdempotencyKey key = key("k");
        run(other, key, "scope-1");
        assertThat(run(cached, key, "never").value()).isEqualTo("scope-1");

        Result<String> otherScope = run(cached, IdempotencyKey.of(scope + "-other", "charge", "k"), "scope-2");
        assertThat(otherScope.replayed()).as("the same key in another scope").isFalse();
        assertThat(otherScope.value()).isEqualTo("scope-2");
        Result<String> otherOperation = run(cached, IdempotencyKey.of(scope, "refund", "k"), "refund-1");
        assertThat(otherOperation.replayed()).as("the same key for another operation").isFalse();
        assertThat(otherOperation.value()).isEqualTo("refund-1");
    }

    @Test
    void anotherRequestOnACachedKeyIsRefusedNotServed() {
        IdempotencyKey key = key("k");
        run(cached, key, "v1");
        assertThat(run(cached, key, "never").value()).isEqualTo("v1");
        assertThatThrownBy(() -> cached.execute(key, Map.of("order", "o-2"), String.class, ctx -> "never"))
                .isInstanceOf(KeyReusedException.class);
    }
}
