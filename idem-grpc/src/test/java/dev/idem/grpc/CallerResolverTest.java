package dev.idem.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.CallerScope;
import io.grpc.Context;
import io.grpc.Metadata;
import org.junit.jupiter.api.Test;

/** Who calls, and the scope their records are keyed by: one encoding, no name spelling another's scope. */
class CallerResolverTest {
    private static Metadata headers(String name, String value) {
        Metadata md = new Metadata();
        md.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value);
        return md;
    }

    @Test
    void aNameIsItsOwnScopeAndAnApiKeyIsItsDigest() {
        CallerResolver gateway = CallerResolver.trustedHeader("x-user");
        CallerResolver apiKey = CallerResolver.apiKeyHeader("x-api-key");

        assertThat(gateway.scope(null, headers("x-user", " alice "))).contains("alice");
        assertThat(apiKey.scope(null, headers("x-api-key", "sk_live_1"))).contains(CallerScope.ofApiKey("sk_live_1"));
        assertThat(apiKey.scope(null, headers("x-api-key", "sk_live_1")).orElseThrow()).doesNotContain("sk_live_1");
    }

    @Test
    void aNameSpellingAnApiKeysScopeNeverReachesIt() {
        String keyScope = CallerScope.ofApiKey("sk_live_1");
        CallerResolver gateway = CallerResolver.trustedHeader("x-user");

        assertThat(gateway.scope(null, headers("x-user", keyScope)).orElseThrow()).isNotEqualTo(keyScope)
                .startsWith(CallerScope.DIGEST_PREFIX);
    }

    @Test
    void orElseKeepsEachResolversOwnScope() {
        CallerResolver rule = CallerResolver.trustedHeader("x-user").orElse(CallerResolver.apiKeyHeader("x-api-key"));

        assertThat(rule.scope(null, headers("x-api-key", "k"))).contains(CallerScope.ofApiKey("k"));
        Metadata both = headers("x-api-key", "k");
        both.put(Metadata.Key.of("x-user", Metadata.ASCII_STRING_MARSHALLER), "bob");
        assertThat(rule.scope(null, both)).contains("bob");
        assertThat(rule.scope(null, new Metadata())).isEmpty();
    }

    @Test
    void aContextKeyNamesWhatAnAuthenticationInterceptorPutThere() throws Exception {
        Context.Key<java.security.Principal> user = Context.key("user");
        CallerResolver resolver = CallerResolver.contextKey(user, java.security.Principal::getName);

        assertThat(resolver.scope(null, new Metadata())).isEmpty();
        assertThat(Context.current().withValue(user, () -> "carol").call(() -> resolver.scope(null, new Metadata())))
                .contains("carol");
        assertThat(CallerResolver.fixed("svc").scope(null, new Metadata())).contains("svc");
    }
}
