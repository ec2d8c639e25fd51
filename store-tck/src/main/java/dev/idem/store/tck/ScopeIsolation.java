package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.CallerScope;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Two scopes with the same operation and client key are two records, however alike the scopes
 * are (the store kit's check, and the scopes the engine kit uses for the same promise): scopes that differ only in case, in a trailing or leading space, in an accent or in its
 * Unicode normal form, in a character outside the Basic Multilingual Plane, in the last
 * character of the longest scope allowed, and the spellings idem's adapters give a long name
 * ({@code sha256:} and its digest) next to a name spelled like that digest. A backend that
 * compares scopes through a case- or accent-insensitive or space-padding collation, keeps them in
 * a character set that replaces what it cannot hold, or cuts them short, lets one tenant claim,
 * read and answer with another's records.
 */
public final class ScopeIsolation {
    private ScopeIsolation() {
    }

    /**
     * Fifteen distinct scopes a store could confuse, built around {@code base} so that no other
     * test meets them: {@code base} itself, in upper case, with a trailing and a leading space,
     * with an accented letter in two normal forms and without its accent, with two characters
     * outside the Basic Multilingual Plane, two of the longest scope allowed differing in their
     * last character, and the {@code sha256:} and {@code api-key:} spellings of
     * {@link CallerScope} next to names spelled like them.
     *
     * @param base a scope of the test's own, at most 150 characters
     * @return the scopes, {@code base} first
     */
    public static List<String> alikeScopes(String base) {
        String longName = base + "/CN=" + "x".repeat(IdempotencyKey.MAX_SCOPE_LENGTH);
        String atLimit = base + "-" + "y".repeat(IdempotencyKey.MAX_SCOPE_LENGTH - base.length() - 2);
        Set<String> scopes = new LinkedHashSet<>(List.of(
                base,
                base.toUpperCase(Locale.ROOT),
                base + " ",
                " " + base,
                base + "-\u00e9",
                base + "-e\u0301",
                base + "-e",
                base + "-\uD83D\uDE00",
                base + "-\uD83D\uDE01",
                atLimit + "a",
                atLimit + "b",
                CallerScope.of(longName),
                CallerScope.of(CallerScope.of(longName)),
                CallerScope.ofApiKey(base),
                CallerScope.of(CallerScope.ofApiKey(base))));
        List<String> out = new ArrayList<>(scopes);
        assertThat(out).as("distinct scopes").hasSize(15);
        return out;
    }

    static void scopesAlikeAreSeparate(KitContext c) {
        IdempotencyStore s = c.store();
        List<IdempotencyKey> keys = new ArrayList<>();
        for (String scope : alikeScopes(c.scope)) {
            keys.add(IdempotencyKey.of(scope, "charge", "k"));
        }
        // All claimed at once, each while the others are in progress: none may meet another's record.
        List<Long> tokens = new ArrayList<>();
        for (IdempotencyKey k : keys) {
            long t = c.token();
            tokens.add(t);
            ClaimResult r = s.claim(k, fp(k), t, KitContext.LONG, KitContext.LONG);
            assertThat(r.status()).as("claim of scope [%s] while the others are in progress", k.scope())
                    .isEqualTo(Status.ACQUIRED);
        }
        for (int i = 0; i < keys.size(); i++) {
            IdempotencyKey k = keys.get(i);
            assertThat(s.complete(k, tokens.get(i), outcome(k), KitContext.LONG)).as("complete of scope [%s]",
                    k.scope()).isTrue();
        }
        for (IdempotencyKey k : keys) {
            StoredRecord found = s.find(k).orElseThrow(() -> new AssertionError("no record for [" + k.scope() + "]"));
            assertThat(found.key()).as("the key found for scope [%s]", k.scope()).isEqualTo(k);
            assertThat(found.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(found.outcome()).as("the outcome found for scope [%s]", k.scope()).isEqualTo(outcome(k));
            assertThat(found.fingerprint()).as("the fingerprint of scope [%s]", k.scope()).isEqualTo(fp(k));
            ClaimResult again = s.claim(k, fp(k), c.token(), KitContext.LONG, KitContext.LONG);
            assertThat(again.status()).isEqualTo(Status.EXISTING);
            assertThat(again.record().outcome()).as("the outcome replayed for scope [%s]", k.scope())
                    .isEqualTo(outcome(k));
        }
    }

    private static byte[] fp(IdempotencyKey k) {
        return ("fp:" + k.scope()).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] outcome(IdempotencyKey k) {
        return ("outcome of [" + k.scope() + "]").getBytes(StandardCharsets.UTF_8);
    }
}
