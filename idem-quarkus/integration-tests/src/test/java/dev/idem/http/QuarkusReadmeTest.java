package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The idem-quarkus README's application as printed there: {@link ChargeResource} with
 * {@code @Idempotent}, {@code idem.store.jdbc.create-table=true} and
 * {@code idem.http.principal-header=X-Api-Key}, on the beans the extension produces (the store
 * over the default datasource, a real PostgreSQL; the HTTP configuration from {@code idem.http.*}).
 */
@QuarkusTest
@TestProfile(Backends.ReadmeProfile.class)
class QuarkusReadmeTest {
    private final Http http = new Http("http://127.0.0.1:" + AbstractQuarkusContract.port());

    private HttpResponse<byte[]> charge(String key, String apiKey, String body) throws Exception {
        return http.post("/charges", body, "Idempotency-Key", key, "X-Api-Key", apiKey);
    }

    @Test
    void aRetryIsReplayedAnotherBodyIsA422AndEachApiKeyHasItsOwnKeys() throws Exception {
        String key = AbstractHttpContract.key();
        int before = ChargeResource.CHARGES.get();
        HttpResponse<byte[]> first = charge(key, "merchant-a", "{\"amount\":100}");
        HttpResponse<byte[]> retry = charge(key, "merchant-a", "{\"amount\":100}");
        HttpResponse<byte[]> other = charge(key, "merchant-a", "{\"amount\":999}");
        HttpResponse<byte[]> otherMerchant = charge(key, "merchant-b", "{\"amount\":999}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(HttpIdempotency.IDEMPOTENCY_STATUS)).hasValue("replayed");
        assertThat(Http.text(retry)).isEqualTo(Http.text(first));
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(otherMerchant.statusCode()).as("another API key, another scope").isEqualTo(201);
        assertThat(ChargeResource.CHARGES.get() - before).as("one charge per merchant").isEqualTo(2);
        assertThat(Arc.container().instance(IdempotencyStore.class).get()).isInstanceOf(JdbcIdempotencyStore.class);
    }

    @Test
    void aChargeWithoutAKeyOrApiKeyIsRefusedAndNothingRuns() throws Exception {
        int before = ChargeResource.CHARGES.get();
        HttpResponse<byte[]> noKey = http.post("/charges", "{\"amount\":1}", "X-Api-Key", "merchant-a");
        HttpResponse<byte[]> nobody = http.post("/charges", "{\"amount\":1}", "Idempotency-Key",
                AbstractHttpContract.key());

        assertThat(noKey.statusCode()).isEqualTo(400);
        assertThat(nobody.statusCode()).isEqualTo(401);
        assertThat(ChargeResource.CHARGES.get()).isEqualTo(before);
    }
}
