package dev.idem.jackson3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.InvalidRequestException;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.JsonCodec;
import dev.idem.engine.RecordFormat;
import dev.idem.engine.Result;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * Jackson 3 writes the same fingerprints as Jackson 2: the engine's golden vectors (copied from
 * idem-engine's FingerprintFormatTest, which computed them outside Java) hold for it, and
 * object requests fingerprint alike under both mappers.
 */
class Jackson3JsonCodecTest {
    private static final JsonCodec JACKSON3 = Jackson3JsonCodec.of(JsonMapper.builder().build());
    private static final JsonCodec JACKSON2 = JsonCodec.jackson2(new ObjectMapper());

    private static String hex(JsonCodec codec, String operation, Object request) {
        return HexFormat.of().formatHex(RecordFormat.of(codec).fingerprint(operation, request));
    }

    @Test
    void theGoldenVectorsHoldUnderJackson3() {
        String order = "{ \"customer\": {\"name\": \"Zo\\u00eb\", \"id\": \"c_42\"},\n \"currency\": \"EUR\", \"amount\": 1050.0 }";
        assertThat(hex(JACKSON3, "charge", order))
                .isEqualTo("2ad922f7eb23c65ae6ead316899ec75781a97a0b5454469795723364439bb75b");
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("b", 2.5);
        map.put("a", List.of(1, 2L, new BigDecimal("1.10")));
        assertThat(hex(JACKSON3, "charge", map))
                .isEqualTo("ab574ec3dfaf655f0620726457da2032f0444289a6205438f33260689caa1a8b");
        assertThat(hex(JACKSON3, "upload", "raw\0bytes".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("559d0f4ee261a03df0fa2f8982685bb258abe69b9b6cb56e5f2ac5920bcc3c59");
    }

    /** A request as an application would type it. */
    public record Line(String sku, int quantity, BigDecimal price, double weight) {
    }

    /** A request as an application would type it. */
    public record Order(String id, List<Line> lines, Map<String, String> meta, Long discount, boolean gift,
            double[] ratios) {
    }

    @Test
    void objectRequestsFingerprintAlikeUnderBothMappers() {
        Order order = new Order("o-1", List.of(new Line("a", 2, new BigDecimal("9.90"), 0.1),
                new Line("\u00e9\ud83d\ude00", 1, new BigDecimal("1e3"), 2e23)), Map.of("z", "1", "a", "2"), null,
                true, new double[] {Double.MIN_VALUE, -0.0, 1e21, 333333333.3333333});
        assertThat(hex(JACKSON3, "order", order)).isEqualTo(hex(JACKSON2, "order", order));
        for (double d : new double[] {2e23, Double.MIN_VALUE, 0.1, 1e21, 1e-7, 100, -0.0}) {
            assertThat(hex(JACKSON3, "op", List.of(d))).as("%s", d).isEqualTo(hex(JACKSON2, "op", List.of(d)));
            assertThat(hex(JACKSON3, "op", List.of(d))).as("%s", d)
                    .isEqualTo(hex(JACKSON3, "op", "[" + JsonCodec.shortestDecimal(d) + "]"));
        }
    }

    @Test
    void nonFiniteNumbersAreBadRequestsAsWithJackson2() {
        for (Object request : List.of(Map.of("amount", Double.NaN), List.of(Double.POSITIVE_INFINITY),
                Map.of("amounts", new double[] {1.5, Double.NEGATIVE_INFINITY}), Map.of("f", Float.NaN))) {
            assertThatThrownBy(() -> hex(JACKSON3, "charge", request)).as("%s", request)
                    .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("malformed request JSON")
                    .satisfies(e -> assertThat(((InvalidRequestException) e).httpStatus()).isEqualTo(400));
        }
    }

    /** A result. */
    public record Charge(String chargeId, long amount) {
    }

    @Test
    void theEngineStoresAndReplaysThroughTheApplicationsJsonMapper() {
        JsonMapper snake = JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).jsonCodec(Jackson3JsonCodec.of(snake))
                .build();
        AtomicInteger runs = new AtomicInteger();
        IdempotencyKey key = IdempotencyKey.of("s", "charge", "k-1");
        Charge first = engine.execute(key, Map.of("amount", 5), Charge.class,
                c -> new Charge("ch_" + runs.incrementAndGet(), 5)).value();
        Result<Charge> replay = engine.execute(key, Map.of("amount", 5), Charge.class, c -> new Charge("never", 0));
        assertThat(replay.replayed()).isTrue();
        assertThat(replay.value()).isEqualTo(first);
        // Stored in the application's own format.
        assertThat(new String(store.find(key).orElseThrow().outcome(), StandardCharsets.UTF_8)).contains("charge_id");

        IdempotencyKey listKey = IdempotencyKey.of("s", "list", "k-2");
        TypeReference<List<Charge>> listType = new TypeReference<>() { };
        engine.execute(listKey, "{}", listType, c -> List.of(new Charge("a", 1), new Charge("b", 2)));
        List<Charge> replayed = engine.execute(listKey, "{}", listType, c -> List.of()).value();
        assertThat(replayed).containsExactly(new Charge("a", 1), new Charge("b", 2));

        IdempotencyKey plain = IdempotencyKey.of("s", "plain", "k-3");
        Object untyped = engine.execute(plain, "{}", c -> Map.of("n", 1)).value();
        assertThat(untyped).isEqualTo(Map.of("n", 1));
        assertThat(engine.execute(plain, "{}", c -> "never").value()).isEqualTo(Map.of("n", 1));
        assertThat(runs.get()).isEqualTo(1);
    }

    @Test
    void aMapperAndACodecTogetherAreRefused() {
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .objectMapper(new ObjectMapper()).jsonCodec(JACKSON3).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("jsonCodec");
    }
}
