package dev.idem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CallerScopeTest {
    /** A 210-character X.509 subject, as a client certificate gives it. */
    static final String LONG_DN = "CN=Alice Example Longname,OU=Payments Platform Engineering,OU=Settlement"
            + " Services,O=Example Corporation Holding International,L=Frankfurt am Main,ST=Hessen,C=DE,"
            + "emailAddress=alice.example@example.com,serialNumber=0042";

    /**
     * The scope the HTTP adapters and {@code @Idempotent} wrote before the encoding was made
     * unambiguous, verbatim: the name as it is when it fits, else {@code sha256:} and its digest.
     */
    static String earlierScope(String name) {
        boolean ok = !name.isEmpty() && name.length() <= IdempotencyKey.MAX_SCOPE_LENGTH
                && name.chars().noneMatch(Character::isISOControl);
        return ok ? name : "sha256:" + sha256(name);
    }

    /** The earlier {@code PrincipalResolver.apiKeyHeader} principal, verbatim. */
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

    @Test
    void everyCallerThatCouldNotBeMistakenKeepsItsEarlierScope() {
        assertThat(LONG_DN).hasSizeGreaterThan(IdempotencyKey.MAX_SCOPE_LENGTH);
        for (String name : List.of("alice", "test:alice", "CN=Alice,O=Example", "user@example.com", "\u00e9l\u00e8ve",
                "\uD83D\uDE00 emoji", "x".repeat(200), "x".repeat(201), LONG_DN, "tab\there", "line\nbreak", "urn:x:y",
                "sha256", "api-key", "SHA256:upper", "API-KEY:upper")) {
            assertThat(CallerScope.of(name)).as(name).isEqualTo(earlierScope(name));
        }
        assertThat(CallerScope.ofApiKey("sk_live_123")).isEqualTo(earlierApiKeyScope("sk_live_123"));
        assertThat(CallerScope.of("")).isEqualTo(earlierScope(""));
    }

    @Test
    void aNameSpelledLikeAnotherCallersScopeGetsAScopeOfItsOwn() {
        String longScope = CallerScope.of(LONG_DN);
        String keyScope = CallerScope.ofApiKey("sk_live_victim");

        // The attackers of the earlier encoding: their names are the victims' scopes.
        assertThat(earlierScope(longScope)).as("the earlier collision").isEqualTo(longScope);
        assertThat(earlierScope(keyScope)).as("the earlier collision").isEqualTo(keyScope);
        assertThat(CallerScope.of(longScope)).isNotEqualTo(longScope).startsWith(CallerScope.DIGEST_PREFIX);
        assertThat(CallerScope.of(keyScope)).isNotEqualTo(keyScope).startsWith(CallerScope.DIGEST_PREFIX);
        assertThat(CallerScope.of("sha256:")).isNotEqualTo("sha256:");
        assertThat(CallerScope.of("api-key:x")).isNotEqualTo("api-key:x");
    }

    @Test
    void namesWithLoneSurrogatesNeverShareADigest() {
        String a = "\uD800" + "x".repeat(10);
        String b = "\uD801" + "x".repeat(10);
        String replaced = "?" + "x".repeat(10);

        assertThat(CallerScope.of(a)).isNotEqualTo(CallerScope.of(b)).startsWith(CallerScope.DIGEST_PREFIX);
        assertThat(CallerScope.of(a)).isNotEqualTo(CallerScope.of(replaced));
        assertThat(CallerScope.of("\uD800" + "x".repeat(300))).isNotEqualTo(CallerScope.of("?" + "x".repeat(300)));
    }

    @Test
    void everyScopeIsAValidKeyPartAndNoTwoNamesShareOne() {
        Random random = new Random(0x5C0FEL);
        Map<String, String> seen = new HashMap<>();
        List<String> names = new ArrayList<>(List.of("", "a", LONG_DN, "sha256:", "api-key:",
                CallerScope.of(LONG_DN), CallerScope.ofApiKey("k")));
        String alphabet = "ab:-\t\n\u00e9\uD800\uDC00\uD83D\uDE00sha256api-key";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder b = new StringBuilder(random.nextBoolean() ? "sha256:" : random.nextBoolean() ? "api-key:" : "");
            int length = random.nextInt(4) == 0 ? 190 + random.nextInt(20) : random.nextInt(12);
            for (int j = 0; j < length; j++) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            names.add(b.toString());
        }
        for (String name : names) {
            String scope = CallerScope.of(name);
            assertThat(IdempotencyKey.inScope(scope)).isNotNull();
            String earlier = seen.putIfAbsent(scope, name);
            assertThat(earlier == null || earlier.equals(name)).as("%s and %s share %s", earlier, name, scope).isTrue();
        }
        String apiKeyScope = CallerScope.ofApiKey("k");
        assertThat(seen).as("an API key's scope is no name's").doesNotContainKey(apiKeyScope);
    }

    @Test
    void anEmptyApiKeyIsRefused() {
        assertThatThrownBy(() -> CallerScope.ofApiKey("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallerScope.of(null)).isInstanceOf(NullPointerException.class);
    }
}
