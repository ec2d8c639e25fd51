package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.StoredRecord;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What one caller sends never reaches another caller's record, on every HTTP adapter (the
 * {@link AbstractHttpContract} extends this class, so each adapter's contract test runs it):
 * <ul>
 *   <li>a principal whose name spells another caller's scope (the {@code sha256:} digest of a
 *       long name, the {@code api-key:} digest of an API key) gets records of its own: it neither
 *       reads the other's stored response nor claims its keys first;</li>
 *   <li>records stored under the scope spellings adapters wrote before that encoding was made
 *       unambiguous are still found: a retry after an upgrade replays, or meets its key in progress;</li>
 *   <li>a request the adapter refuses (409 in progress, 422 key reused, 400, 413, 504 spent
 *       budget) leaves the stored record byte for byte as it was, in progress and completed.</li>
 * </ul>
 * The caller is the {@code X-User} header, as the server's authentication names it
 * ({@link #principalName}), else the API key in {@code X-Api-Key} (the contract's configuration
 * falls back to {@link PrincipalResolver#apiKeyHeader}).
 */
abstract class HttpIsolationContract {
    /** A 210-character X.509 subject, as a client certificate gives it: longer than a scope may be. */
    static final String LONG_DN = "CN=Alice Example Longname,OU=Payments Platform Engineering,OU=Settlement"
            + " Services,O=Example Corporation Holding International,L=Frankfurt am Main,ST=Hessen,C=DE,"
            + "emailAddress=alice.example@example.com,serialNumber=0042";

    /** The client pointed at the running server. */
    abstract Http http();

    /** The application behind the adapter. */
    abstract TestHandler handler();

    /** The store, which records what the adapter claimed. */
    abstract SwitchableStore store();

    /**
     * The principal name the server's authentication gives the caller {@code X-User: user}.
     *
     * @param user the header's value
     * @return the name the adapter scopes by
     */
    String principalName(String user) {
        return user;
    }

    /**
     * The scope adapters wrote for a principal before the encoding was made unambiguous, verbatim:
     * the name as it is when it fits, else {@code sha256:} and its digest.
     */
    static String earlierScope(String name) {
        boolean ok = !name.isEmpty() && name.length() <= IdempotencyKey.MAX_SCOPE_LENGTH
                && name.chars().noneMatch(Character::isISOControl);
        return ok ? name : "sha256:" + sha256(name);
    }

    /** The scope {@link PrincipalResolver#apiKeyHeader} wrote before, verbatim. */
    static String earlierApiKeyScope(String apiKey) {
        return "api-key:" + sha256(apiKey);
    }

    static String sha256(String text) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private HttpResponse<byte[]> charge(String key, String json, String... caller) throws Exception {
        String[] headers = new String[caller.length + 2];
        headers[0] = "Idempotency-Key";
        headers[1] = key;
        System.arraycopy(caller, 0, headers, 2, caller.length);
        return http().post("/api/charges", json, headers);
    }

    private static String status(HttpResponse<byte[]> r) {
        return r.statusCode() + " " + r.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS).orElse("-");
    }

    /** The one key the adapter claimed for client key {@code key}. */
    private IdempotencyKey claimedOnce(String key) {
        Set<IdempotencyKey> keys = store().claimed.getOrDefault(key, Set.of());
        assertThat(keys).as("keys claimed for %s", key).hasSize(1);
        return keys.iterator().next();
    }

    @Test
    void aNameSpelledLikeALongPrincipalsScopeGetsRecordsOfItsOwn() throws Exception {
        String attacker = "sha256:" + sha256(principalName(LONG_DN));
        String read = UUID.randomUUID().toString();
        String claimedFirst = UUID.randomUUID().toString();

        HttpResponse<byte[]> victim = charge(read, "{\"amount\":100}", "X-User", LONG_DN);
        HttpResponse<byte[]> reader = charge(read, "{\"amount\":100}", "X-User", attacker);
        HttpResponse<byte[]> squatter = charge(claimedFirst, "{\"to\":\"mallory\"}", "X-User", attacker);
        HttpResponse<byte[]> victimLater = charge(claimedFirst, "{\"amount\":200}", "X-User", LONG_DN);

        assertThat(status(victim)).isEqualTo("201 stored");
        assertThat(status(reader)).as("the attacker's request, with the victim's key").isEqualTo("201 stored");
        assertThat(reader.body()).isNotEqualTo(victim.body());
        assertThat(status(squatter)).isEqualTo("201 stored");
        assertThat(status(victimLater)).as("the victim, on a key the attacker used first").isEqualTo("201 stored");
        assertThat(handler().executions("/api/charges", read)).isEqualTo(2);
        assertThat(handler().executions("/api/charges", claimedFirst)).isEqualTo(2);
        assertThat(store().claimed.get(read)).extracting(IdempotencyKey::scope).doesNotHaveDuplicates().hasSize(2);
    }

    @Test
    void aNameSpelledLikeAnApiKeysScopeGetsRecordsOfItsOwn() throws Exception {
        String apiKey = "sk_live_" + UUID.randomUUID();
        String attacker = earlierApiKeyScope(apiKey);
        String read = UUID.randomUUID().toString();
        String claimedFirst = UUID.randomUUID().toString();

        HttpResponse<byte[]> victim = charge(read, "{\"amount\":100}", "X-Api-Key", apiKey);
        HttpResponse<byte[]> reader = charge(read, "{\"amount\":100}", "X-User", attacker);
        HttpResponse<byte[]> squatter = charge(claimedFirst, "{\"to\":\"mallory\"}", "X-User", attacker);
        HttpResponse<byte[]> victimLater = charge(claimedFirst, "{\"amount\":200}", "X-Api-Key", apiKey);

        assertThat(status(victim)).isEqualTo("201 stored");
        assertThat(status(reader)).as("the login, with the API key's client key").isEqualTo("201 stored");
        assertThat(reader.body()).isNotEqualTo(victim.body());
        assertThat(status(squatter)).isEqualTo("201 stored");
        assertThat(status(victimLater)).as("the API key, on a key the login used first").isEqualTo("201 stored");
        assertThat(handler().executions("/api/charges", read)).isEqualTo(2);
        assertThat(handler().executions("/api/charges", claimedFirst)).isEqualTo(2);
    }

    @Test
    void recordsStoredUnderTheEarlierScopeSpellingsAreFoundAfterTheUpgrade() throws Exception {
        String apiKey = "sk_live_" + UUID.randomUUID();
        Map<String, String[]> callers = new LinkedHashMap<>();
        callers.put(earlierScope(principalName("upgrade-alice")), new String[] {"X-User", "upgrade-alice"});
        callers.put(earlierScope(principalName(LONG_DN)), new String[] {"X-User", LONG_DN});
        callers.put(earlierApiKeyScope(apiKey), new String[] {"X-Api-Key", apiKey});
        String body = "{\"amount\":300}";
        for (Map.Entry<String, String[]> caller : callers.entrySet()) {
            String earlier = caller.getKey();
            String fresh = UUID.randomUUID().toString();
            HttpResponse<byte[]> first = charge(fresh, body, caller.getValue());
            IdempotencyKey written = claimedOnce(fresh);
            assertThat(written.scope()).as("the scope the adapter writes for %s", caller.getValue()[1])
                    .isEqualTo(earlier);
            StoredRecord stored = store().find(written).orElseThrow();

            // What the code before the upgrade left: a completed record and one in progress,
            // under the scope as it spelled it.
            String completed = UUID.randomUUID().toString();
            IdempotencyKey before = IdempotencyKey.of(earlier, written.operation(), completed);
            long token = UUID.randomUUID().getMostSignificantBits();
            assertThat(store().claim(before, stored.fingerprint(), token, Duration.ofHours(1), Duration.ofHours(1))
                    .status()).isEqualTo(ClaimResult.Status.ACQUIRED);
            assertThat(store().complete(before, token, stored.outcome(), Duration.ofHours(1))).isTrue();
            String pending = UUID.randomUUID().toString();
            assertThat(store().claim(IdempotencyKey.of(earlier, written.operation(), pending), stored.fingerprint(),
                    token + 1, Duration.ofHours(1), Duration.ofHours(1)).status())
                    .isEqualTo(ClaimResult.Status.ACQUIRED);

            HttpResponse<byte[]> retry = charge(completed, body, caller.getValue());
            HttpResponse<byte[]> duplicate = charge(pending, body, caller.getValue());

            assertThat(status(first)).isEqualTo("201 stored");
            assertThat(status(retry)).as("a retry after the upgrade, %s", caller.getValue()[1])
                    .isEqualTo("201 replayed");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(duplicate.statusCode()).as("a duplicate of a key in progress since before the upgrade")
                    .isEqualTo(409);
            assertThat(handler().executions("/api/charges", completed)).isZero();
            assertThat(handler().executions("/api/charges", pending)).isZero();
        }
        // The spelling that used to reach the long name's records no longer does.
        String attacker = "sha256:" + sha256(principalName(LONG_DN));
        String key = UUID.randomUUID().toString();
        IdempotencyKey before = IdempotencyKey.of(earlierScope(principalName(LONG_DN)), "POST /api/charges", key);
        long token = UUID.randomUUID().getLeastSignificantBits();
        store().claim(before, "fp".getBytes(StandardCharsets.UTF_8), token, Duration.ofHours(1), Duration.ofHours(1));
        assertThat(status(charge(key, body, "X-User", attacker))).isEqualTo("201 stored");
    }

    // ---- requests the adapter refuses

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
        return Snapshot.of(store().find(key).orElseThrow(() -> new AssertionError("no record for " + key)));
    }

    /** One request the adapter must refuse: its label, the status it must get, and its body and extra headers. */
    private record Refusal(String label, int status, String body, String... headers) {
    }

    private static List<Refusal> refusals(int sameRequestStatus) {
        return List.of(
                new Refusal("the same request", sameRequestStatus, "{\"x\":1}"),
                new Refusal("another request", 422, "{\"x\":2}"),
                new Refusal("malformed JSON", 400, "{\"x\":"),
                new Refusal("a body over the limit", 413, "{\"pad\":\"" + "x".repeat(AbstractHttpContract.MAX_BODY)
                        + "\"}"),
                new Refusal("a spent budget", 504, "{\"x\":1}", "X-Request-Timeout", "0"),
                new Refusal("a malformed budget", 400, "{\"x\":1}", "X-Request-Timeout", "soon"));
    }

    private void refuseEach(String key, List<Refusal> refusals, Snapshot expected, IdempotencyKey stored)
            throws Exception {
        for (Refusal r : refusals) {
            String[] headers = new String[r.headers().length + 4];
            System.arraycopy(new String[] {"Idempotency-Key", key, "X-User", "alice"}, 0, headers, 0, 4);
            System.arraycopy(r.headers(), 0, headers, 4, r.headers().length);
            HttpResponse<byte[]> answer = http().post("/api/slow", r.body(), headers);
            assertThat(answer.statusCode()).as("status of %s", r.label()).isEqualTo(r.status());
            assertThat(snapshot(stored)).as("the record after %s (%s)", r.label(), Http.text(answer))
                    .isEqualTo(expected);
        }
    }

    @Test
    void requestsTheAdapterRefusesLeaveTheStoredRecordByteForByteAsItWas() throws Exception {
        TestHandler h = handler();
        h.gate = new CountDownLatch(1);
        h.entered = new CountDownLatch(1);
        String key = UUID.randomUUID().toString();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<HttpResponse<byte[]>> holder = pool.submit(() ->
                    http().post("/api/slow", "{\"x\":1}", "Idempotency-Key", key, "X-User", "alice"));
            assertThat(h.entered.await(30, TimeUnit.SECONDS)).isTrue();
            IdempotencyKey stored = claimedOnce(key);
            Snapshot held = snapshot(stored);
            assertThat(held.state()).isEqualTo("IN_PROGRESS");

            refuseEach(key, refusals(409), held, stored);

            h.gate.countDown();
            HttpResponse<byte[]> original = holder.get(30, TimeUnit.SECONDS);
            assertThat(status(original)).isEqualTo("201 stored");
            Snapshot done = snapshot(stored);
            assertThat(done.state()).isEqualTo("COMPLETED");
            assertThat(done.token()).as("the holder's claim, untouched by the refused requests")
                    .isEqualTo(held.token());
            assertThat(done.attempt()).isEqualTo(held.attempt());

            // Once completed, the same request is a replay; the others are still refused.
            refuseEach(key, refusals(201), done, stored);
            assertThat(h.executions("/api/slow", key)).isEqualTo(1);
        } finally {
            h.gate.countDown();
            pool.shutdownNow();
        }
    }
}
