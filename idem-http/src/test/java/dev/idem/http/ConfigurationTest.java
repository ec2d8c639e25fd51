package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigurationTest {
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();

    @Test
    void defaultsCoverPostAndPatchAndRequireKeys() {
        HttpIdempotency config = HttpIdempotency.builder(engine).build();

        assertThat(config.methods()).containsExactlyInAnyOrder("POST", "PATCH");
        assertThat(config.keyRequired("/anything")).isTrue();
        assertThat(config.storedHeaders()).contains("content-type", "location").doesNotContain("set-cookie");
        assertThat(config.maxBodyBytes()).isEqualTo(1024 * 1024);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "head", "OPTIONS", "TRACE"})
    void safeMethodsCannotBeCovered(String method) {
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).methods(method))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(method);
    }

    @Test
    void settersCheckTheirArgumentsAtOnce() {
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).methods("PO ST"))
                .hasMessageContaining("PO ST");
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).maxBodyBytes(0)).hasMessageContaining("0");
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).storeRetryAfter(Duration.ZERO))
                .hasMessageContaining("PT0S");
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).storedHeaders("Set-Cookie"))
                .hasMessageContaining("Set-Cookie");
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).storedHeaders("Content-Length"))
                .hasMessageContaining("Content-Length");
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).excludeFromFingerprint("no-slash"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpIdempotency.builder(engine).routes(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> HttpIdempotency.builder(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void eachSettingMayBeSetOnce() {
        HttpIdempotency.Builder b = HttpIdempotency.builder(engine).maxBodyBytes(10);
        assertThatThrownBy(() -> b.maxBodyBytes(20)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("maxBodyBytes");
    }

    @Test
    void standardPolicyStoresSuccessAndDeterministicClientErrorsOnly() {
        ResponseStoragePolicy p = ResponseStoragePolicy.standard();

        assertThat(java.util.List.of(200, 201, 204, 301, 400, 404, 410, 413, 422))
                .allSatisfy(s -> assertThat(p.stores(s)).as("%d", s).isTrue());
        // 405, 406 and 415 answer how the request was framed, not the operation: never stored.
        assertThat(java.util.List.of(401, 403, 405, 406, 408, 409, 415, 423, 425, 429, 500, 502, 503, 504))
                .allSatisfy(s -> assertThat(p.stores(s)).as("%d", s).isFalse());
    }

    @Test
    void apiKeyPrincipalIsADigestNotTheSecret() {
        IncomingRequest request = new IncomingRequest() {
            @Override
            public String method() {
                return "POST";
            }

            @Override
            public String path() {
                return "/";
            }

            @Override
            public String query() {
                return "";
            }

            @Override
            public java.util.List<String> headers(String name) {
                return name.equalsIgnoreCase("X-Api-Key") ? java.util.List.of("sk_live_secret") : java.util.List.of();
            }

            @Override
            public Optional<String> authenticatedUser() {
                return Optional.empty();
            }
        };

        Optional<String> principal = PrincipalResolver.apiKeyHeader("X-Api-Key").resolve(request);

        assertThat(principal).hasValueSatisfying(p -> assertThat(p).startsWith("api-key:").doesNotContain("secret")
                .hasSize("api-key:".length() + 43));
        assertThat(PrincipalResolver.authenticatedUser().resolve(request)).isEmpty();
        assertThat(PrincipalResolver.fixed("svc").resolve(request)).hasValue("svc");
    }
}
