package dev.idem.engine.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.DeadlineExceededException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidRequestException;
import dev.idem.api.KeyReusedException;
import dev.idem.api.RequestInProgressException;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.api.time.Deadline;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.engine.protection.KeyedScopeStore;
import dev.idem.store.tck.ScopeIsolation;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What one caller does never changes, moves or reveals another caller's record, through the
 * engine over the store under test, bugs peers shipped made impossible:
 * <ul>
 *   <li>a request the engine refuses (a duplicate while the key is in progress, 409, also one
 *       that waits and polls; another request with the key, 422; malformed JSON, 400; a request
 *       over the limit, 413; a spent deadline, 504), blocking or asynchronous, leaves the stored
 *       record byte for byte as it was, in progress and completed (a peer deleted the holder's
 *       record when it refused a duplicate, and the holder's work ran again);</li>
 *   <li>work that mutates its request object (a POJO or a Map) changes neither the key's
 *       fingerprint nor where the completion goes: the key's record completes, and a retry with
 *       the request as the client sent it replays (a peer recomputed the key from the mutated
 *       request: the original stayed in progress, expired and ran twice);</li>
 *   <li>two scopes with the same operation and client key never see each other's records, however
 *       alike the scopes ({@link ScopeIsolation#alikeScopes}): neither a replay, nor a 422, nor a
 *       409 of the other's, with plain engines, with encrypted outcomes, keyed fingerprints and a
 *       near cache, and with keyed scopes ({@link KeyedScopeStore}).</li>
 * </ul>
 * Each runs with a plain engine and with a protected one (encrypted outcomes, keyed fingerprints,
 * a near cache). An adapter's test extends this class and implements {@link #createFixture()};
 * the kit's own tests show each check failing against a store or caller with the matching bug.
 */
@Timeout(120)
public abstract class CallerIsolationContract {
    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final KeyVersion OUTCOME_KEY = KeyVersion.of("outcomes-1", bytes32('o'));
    private static final KeyVersion FINGERPRINT_SECRET = KeyVersion.of("fingerprints-1", bytes32('f'));
    private static final KeyVersion SCOPE_SECRET = KeyVersion.of("scopes-1", bytes32('s'));

    /** The fixture for the current test. */
    protected StoreFixture fixture;
    private final List<IdempotencyEngine> engines = new ArrayList<>();
    private String scope;

    /**
     * Builds the fixture for one test; called before each test.
     *
     * @return a fresh fixture
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createFixture() throws Exception;

    /**
     * How a caller hands a request to the engine, as an adapter does: the key derived from the
     * request ({@code @Idempotent(key = "#order.id")}), the request fingerprinted, the work run
     * on it. The default is the correct one; the kit's own tests give callers with a bug.
     *
     * @return the caller the mutation check goes through
     */
    protected Caller caller() {
        return Caller.DIRECT;
    }

    /** A caller that derives a key from a request and runs work on it through the engine. */
    public interface Caller {
        /** The key derived from the request before the call, the request given to the engine as it is. */
        Caller DIRECT = new Caller() {
            @Override
            public <R, T> Result<T> call(IdempotencyEngine engine, IdempotencyStore store, String scope, R request,
                    Function<R, String> id, Class<T> type, Function<R, T> work) {
                IdempotencyKey key = IdempotencyKey.of(scope, "place-order", id.apply(request));
                return engine.execute(key, request, type, ctx -> work.apply(request));
            }
        };

        /**
         * Runs {@code work} on {@code request} once for the key {@code id} derives from it.
         *
         * @param <R> the request type
         * @param <T> the result type
         * @param engine the engine
         * @param store the engine's store
         * @param scope the caller's scope
         * @param request the request as the client sent it; the work may change it
         * @param id the client key, from the request
         * @param type the result type
         * @param work the work
         * @return the engine's result
         */
        <R, T> Result<T> call(IdempotencyEngine engine, IdempotencyStore store, String scope, R request,
                Function<R, String> id, Class<T> type, Function<R, T> work);
    }

    @BeforeEach
    final void setUpIsolation() throws Exception {
        fixture = createFixture();
        scope = "iso-" + UUID.randomUUID();
    }

    @AfterEach
    final void tearDownIsolation() throws Exception {
        engines.forEach(IdempotencyEngine::close);
        engines.clear();
        if (fixture != null) {
            fixture.close();
        }
    }

    private static byte[] bytes32(char c) {
        byte[] b = new byte[32];
        java.util.Arrays.fill(b, (byte) c);
        return b;
    }

    /** An engine over {@code store}; protected: encrypted outcomes, keyed fingerprints and a near cache. */
    private IdempotencyEngine engine(IdempotencyStore store, boolean protect, int maxRequestBytes) {
        return started(builder(store, protect).maxRequestBytes(maxRequestBytes));
    }

    private static IdempotencyEngineBuilder builder(IdempotencyStore store, boolean protect) {
        IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(store).lease(LEASE).ttl(TTL);
        if (protect) {
            b.encryptOutcomes(KeyRing.of(OUTCOME_KEY)).keyedFingerprints(KeyRing.of(FINGERPRINT_SECRET))
                    .nearCache(100);
        }
        return b;
    }

    private IdempotencyEngine started(IdempotencyEngineBuilder b) {
        IdempotencyEngine engine = b.build();
        engines.add(engine);
        return engine;
    }

    private IdempotencyEngine engine(IdempotencyStore store, boolean protect) {
        return engine(store, protect, 64 * 1024);
    }

    // ---- refused requests leave the record as it was

    /** A record's every field, its byte arrays as hex: equal snapshots mean byte-for-byte equal records. */
    record Snapshot(IdempotencyKey key, String state, String fingerprint, long token, int attempt, Instant createdAt,
            Instant leaseExpiresAt, Instant expiresAt, String outcome, String journal) {
        static Snapshot of(StoredRecord r) {
            HexFormat hex = HexFormat.of();
            return new Snapshot(r.key(), r.state().name(), hex.formatHex(r.fingerprint()), r.fencingToken(),
                    r.attempt(), r.createdAt(), r.leaseExpiresAt(), r.expiresAt(),
                    r.outcome() == null ? null : hex.formatHex(r.outcome()),
                    r.journal() == null ? null : hex.formatHex(r.journal()));
        }
    }

    private Snapshot snapshot(IdempotencyKey key) {
        return Snapshot.of(fixture.store().find(key).orElseThrow(() -> new AssertionError("no record for " + key)));
    }

    private static final Map<String, Object> REQUEST = Map.of("order", "o-1", "amountCents", 1250);
    private static final Map<String, Object> OTHER_REQUEST = Map.of("order", "o-1", "amountCents", 9999);

    /** Every refusal a duplicate can meet, each followed by a look at the record. */
    private void refuseEach(IdempotencyKey key, boolean protect, boolean inProgress, Snapshot expected) {
        // Time passes first (a second of a five-minute lease), so that a refusal that renews the
        // holder's lease from now, or rewrites its deadlines, shows.
        if (fixture.clockIsSimulated()) {
            try {
                fixture.advance(Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        IdempotencyStore other = fixture.otherStore();
        IdempotencyEngine engine = engine(other, protect);
        IdempotencyEngine small = engine(other, protect, 256);
        // A duplicate that waits: its polls are claims of the held record, on a ticker its sleeps move.
        AtomicLong nanos = new AtomicLong();
        IdempotencyEngine waiting = started(builder(other, protect)
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(2))).ticker(nanos::get)
                .sleeper(d -> nanos.addAndGet(d.toNanos())));
        Map<String, Runnable> refusals = new LinkedHashMap<>();
        refusals.put("another request (422)", () -> assertThatThrownBy(() -> engine.execute(key, OTHER_REQUEST,
                String.class, ctx -> "never")).isInstanceOf(KeyReusedException.class));
        refusals.put("another request, asynchronously (422)", () -> assertThatThrownBy(() -> engine.executeAsync(
                key, OTHER_REQUEST, String.class, ctx -> CompletableFuture.completedFuture("never")).join())
                .hasCauseInstanceOf(KeyReusedException.class));
        refusals.put("malformed JSON (400)", () -> assertThatThrownBy(() -> engine.execute(key, "{\"order\":",
                String.class, ctx -> "never")).isInstanceOf(InvalidRequestException.class));
        refusals.put("a request over the limit (413)", () -> assertThatThrownBy(() -> small.execute(key,
                Map.of("order", "o-1", "pad", "x".repeat(1000)), String.class, ctx -> "never"))
                .isInstanceOf(InvalidRequestException.class)
                .satisfies(e -> assertThat(((InvalidRequestException) e).tooLarge()).isTrue()));
        refusals.put("a spent deadline (504)", () -> assertThatThrownBy(() -> engine.execute(key, REQUEST,
                String.class, CallOptions.defaults().withDeadline(Deadline.after(Duration.ZERO)), ctx -> "never"))
                .isInstanceOf(DeadlineExceededException.class));
        if (inProgress) {
            refusals.put("the same request (409)", () -> assertThatThrownBy(() -> engine.execute(key, REQUEST,
                    String.class, ctx -> "never")).isInstanceOf(RequestInProgressException.class));
            refusals.put("the same request, asynchronously (409)", () -> assertThatThrownBy(() -> engine
                    .executeAsync(key, REQUEST, String.class, ctx -> CompletableFuture.completedFuture("never"))
                    .join()).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(RequestInProgressException.class));
            refusals.put("the same request, waiting and polling (409)", () -> assertThatThrownBy(() -> waiting
                    .execute(key, REQUEST, String.class, ctx -> "never"))
                    .isInstanceOf(RequestInProgressException.class));
        }
        refusals.forEach((label, refusal) -> {
            refusal.run();
            assertThat(snapshot(key)).as("the record after %s", label).isEqualTo(expected);
        });
    }

    private void refusedRequestsLeaveTheRecordAsItWas(boolean protect) {
        IdempotencyKey key = IdempotencyKey.of(scope, "charge", "held-" + protect);
        IdempotencyEngine holder = engine(fixture.store(), protect);
        AtomicInteger runs = new AtomicInteger();
        Snapshot[] held = new Snapshot[1];
        String value = holder.execute(key, REQUEST, String.class, ctx -> {
            runs.incrementAndGet();
            held[0] = snapshot(key);
            refuseEach(key, protect, true, held[0]);
            return "charged";
        }).value();
        Snapshot done = snapshot(key);
        assertThat(done.state()).isEqualTo("COMPLETED");
        assertThat(done.token()).as("the holder's claim, untouched by the refusals").isEqualTo(held[0].token());
        assertThat(done.attempt()).isEqualTo(held[0].attempt());

        refuseEach(key, protect, false, done);
        Result<String> replay = engine(fixture.otherStore(), protect).execute(key, REQUEST, String.class,
                ctx -> "ran again");
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(value);
        assertThat(snapshot(key)).as("the record after a replay").isEqualTo(done);
        assertThat(runs).hasValue(1);
    }

    @Test
    void refusedRequestsLeaveTheStoredRecordByteForByteAsItWas() {
        refusedRequestsLeaveTheRecordAsItWas(false);
    }

    @Test
    void refusedRequestsLeaveTheProtectedRecordByteForByteAsItWas() {
        refusedRequestsLeaveTheRecordAsItWas(true);
    }

    // ---- work that mutates its request

    /** A mutable request, as a controller gets one bound from JSON. */
    public static final class Order {
        private String id;
        private long amountCents;
        private List<String> items;

        /** For Jackson. */
        public Order() {
        }

        Order(String id, long amountCents, List<String> items) {
            this.id = id;
            this.amountCents = amountCents;
            this.items = new ArrayList<>(items);
        }

        /**
         * The order's id, the client's key.
         *
         * @return the id
         */
        public String getId() {
            return id;
        }

        /**
         * Sets the id.
         *
         * @param id the id
         */
        public void setId(String id) {
            this.id = id;
        }

        /**
         * The amount.
         *
         * @return the amount in cents
         */
        public long getAmountCents() {
            return amountCents;
        }

        /**
         * Sets the amount.
         *
         * @param amountCents the amount in cents
         */
        public void setAmountCents(long amountCents) {
            this.amountCents = amountCents;
        }

        /**
         * The items.
         *
         * @return the items, mutable
         */
        public List<String> getItems() {
            return items;
        }

        /**
         * Sets the items.
         *
         * @param items the items
         */
        public void setItems(List<String> items) {
            this.items = items;
        }

        Order copy() {
            return new Order(id, amountCents, items);
        }
    }

    /**
     * Sends {@code original} (a fresh copy each time) twice through the caller: the first call's
     * work changes the request it is given; then checks where the completion went and that the
     * retry replays.
     */
    private <R> void mutatingWorkKeepsItsRecord(boolean protect, Function<R, R> copy, R original,
            Function<R, String> id, Function<R, String> mutate) {
        IdempotencyEngine engine = engine(fixture.store(), protect);
        String originalId = id.apply(original);
        AtomicInteger runs = new AtomicInteger();
        String[] mutatedId = new String[1];
        Result<String> first = caller().call(engine, fixture.store(), scope, copy.apply(original), id, String.class,
                request -> {
                    runs.incrementAndGet();
                    mutatedId[0] = mutate.apply(request);
                    return "placed " + originalId + " run " + runs.get();
                });
        IdempotencyKey key = IdempotencyKey.of(scope, "place-order", originalId);
        StoredRecord record = fixture.store().find(key).orElseThrow(() -> new AssertionError("no record for " + key));
        assertThat(record.state()).as("the record of the key the request came with").hasToString("COMPLETED");
        assertThat(fixture.store().find(IdempotencyKey.of(scope, "place-order", mutatedId[0])))
                .as("a record under the key the mutated request would give").isEmpty();

        Result<String> retry = caller().call(engine(fixture.otherStore(), protect), fixture.otherStore(), scope,
                copy.apply(original), id, String.class, request -> "placed again run " + runs.incrementAndGet());
        Result<String> cachedRetry = caller().call(engine, fixture.store(), scope, copy.apply(original), id,
                String.class, request -> "placed again run " + runs.incrementAndGet());

        assertThat(retry.replayed()).as("a retry with the request as the client sent it").isTrue();
        assertThat(retry.value()).isEqualTo(first.value());
        assertThat(cachedRetry.replayed()).isTrue();
        assertThat(cachedRetry.value()).isEqualTo(first.value());
        assertThat(runs).as("the work ran once").hasValue(1);
    }

    private void mutatingWork(boolean protect) {
        mutatingWorkKeepsItsRecord(protect, Order::copy, new Order("o-pojo-" + protect, 1250, List.of("book")),
                Order::getId, o -> {
                    o.setId(o.getId() + "-mutated");
                    o.setAmountCents(1);
                    o.getItems().add("free gift");
                    return o.getId();
                });
        Map<String, Object> map = new HashMap<>();
        map.put("id", "o-map-" + protect);
        map.put("amountCents", 1250);
        mutatingWorkKeepsItsRecord(protect, m -> new HashMap<>(m), map, m -> String.valueOf(m.get("id")), m -> {
            m.put("id", m.get("id") + "-mutated");
            m.put("amountCents", 1);
            m.put("coupon", "FREE");
            return String.valueOf(m.get("id"));
        });
    }

    @Test
    void workThatMutatesItsRequestChangesNeitherTheFingerprintNorWhereTheCompletionGoes() {
        mutatingWork(false);
    }

    @Test
    void workThatMutatesItsRequestLeavesAProtectedRecordReadable() {
        mutatingWork(true);
    }

    @Test
    void asynchronousWorkThatMutatesItsRequestKeepsItsRecord() throws Exception {
        for (boolean protect : new boolean[] {false, true}) {
            IdempotencyEngine engine = engine(fixture.store(), protect);
            IdempotencyKey key = IdempotencyKey.of(scope, "place-order", "o-async-" + protect);
            Map<String, Object> sent = new HashMap<>(Map.of("id", key.key(), "amountCents", 1250));
            AtomicInteger runs = new AtomicInteger();
            String first = engine.executeAsync(key, sent, String.class, ctx -> CompletableFuture.supplyAsync(() -> {
                sent.put("amountCents", 1);
                sent.put("id", "changed");
                return "placed run " + runs.incrementAndGet();
            })).get(60, TimeUnit.SECONDS).value();
            Result<String> retry = engine(fixture.otherStore(), protect).executeAsync(key,
                    new HashMap<>(Map.of("id", key.key(), "amountCents", 1250)), String.class,
                    ctx -> CompletableFuture.completedFuture("placed again")).get(60, TimeUnit.SECONDS);

            assertThat(retry.replayed()).isTrue();
            assertThat(retry.value()).isEqualTo(first);
            assertThat(runs).hasValue(1);
        }
    }

    // ---- scopes alike

    private void scopesNeverSeeEachOther(IdempotencyStore store, IdempotencyStore otherStore, boolean protect) {
        List<String> scopes = ScopeIsolation.alikeScopes(scope);
        IdempotencyEngine engine = engine(store, protect);
        IdempotencyEngine other = engine(otherStore, protect);
        Map<String, Object> request = Map.of("order", "o-1", "amountCents", 1250);
        String first = scopes.get(0);
        IdempotencyKey firstKey = IdempotencyKey.of(first, "charge", "k");
        List<String> answers = new ArrayList<>();
        // While the first scope's work runs, every other scope claims the same operation and key:
        // the same request and another, each its own first execution.
        engine.execute(firstKey, request, String.class, ctx -> {
            for (String s : scopes.subList(1, scopes.size())) {
                IdempotencyKey k = IdempotencyKey.of(s, "charge", "k");
                Result<String> own = other.execute(k, request, String.class, c -> "answer of [" + s + "]");
                assertThat(own.replayed()).as("the first call of scope [%s]", s).isFalse();
                answers.add(own.value());
            }
            return "answer of [" + first + "]";
        });
        Map<String, Object> another = Map.of("order", "o-2", "amountCents", 9999);
        for (String s : scopes) {
            IdempotencyKey k = IdempotencyKey.of(s, "charge", "k");
            Result<String> replay = engine.execute(k, request, String.class, c -> "ran again");
            assertThat(replay.replayed()).as("a retry of scope [%s]", s).isTrue();
            assertThat(replay.value()).as("the answer replayed to scope [%s]", s).isEqualTo("answer of [" + s + "]");
            Result<String> otherKey = other.execute(IdempotencyKey.of(s, "charge", "k2"), another, String.class,
                    c -> "k2 of [" + s + "]");
            assertThat(otherKey.value()).isEqualTo("k2 of [" + s + "]");
        }
        assertThat(answers).doesNotHaveDuplicates().hasSize(scopes.size() - 1);
    }

    @Test
    void twoScopesWithTheSameOperationAndKeyNeverSeeEachOthersRecords() {
        scopesNeverSeeEachOther(fixture.store(), fixture.otherStore(), false);
    }

    @Test
    void twoScopesNeverSeeEachOthersProtectedRecordsNorCachedOnes() {
        scopesNeverSeeEachOther(fixture.store(), fixture.otherStore(), true);
    }

    @Test
    void twoScopesNeverSeeEachOthersRecordsWithKeyedScopes() {
        KeyedScopeStore keyed = KeyedScopeStore.over(fixture.store(), SCOPE_SECRET);
        scopesNeverSeeEachOther(keyed, KeyedScopeStore.over(fixture.otherStore(), SCOPE_SECRET), false);
        // What the backend holds names no scope: the record is under the MAC, not under the scope.
        IdempotencyKey k = IdempotencyKey.of(scope, "charge", "k");
        assertThat(fixture.store().find(k)).as("a record under the scope in clear").isEmpty();
        StoredRecord stored = fixture.store().find(keyed.stored(k)).orElseThrow();
        assertThat(stored.key().scope()).startsWith(KeyedScopeStore.PREFIX + SCOPE_SECRET.id() + ":")
                .doesNotContain(scope);
        assertThat(keyed.find(k).orElseThrow().key()).as("the record as the engine reads it").isEqualTo(k);
    }
}
