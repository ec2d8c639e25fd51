package dev.idem.spring.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.JsonCodec;
import dev.idem.jackson3.Jackson3JsonCodec;
import dev.idem.spring.boot.IdemAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/** On Boot 4 the engine's JSON is the application's Jackson 3 JsonMapper, with its settings. */
class Boot4JsonTest {
    /** A result. */
    public record Receipt(String chargeId, Instant at) {
    }

    @Test
    void theEngineUsesTheApplicationsJsonMapperAndItsSettings() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                        IdemJackson3AutoConfiguration.class, IdemAutoConfiguration.class))
                .withPropertyValues("idem.store.kind=memory", "idem.purge.enabled=false",
                        "spring.jackson.property-naming-strategy=SNAKE_CASE")
                .run(ctx -> {
                    assertThat(ctx.getBean(JsonCodec.class)).isInstanceOf(Jackson3JsonCodec.class);
                    IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
                    IdempotencyKey key = IdempotencyKey.of("s", "charge", "k");
                    Receipt first = new Receipt("ch_1", Instant.parse("2026-01-02T03:04:05Z"));
                    engine.execute(key, "{}", Receipt.class, c -> first);
                    assertThat(engine.execute(key, "{}", Receipt.class, c -> null).value()).isEqualTo(first);
                    String stored = new String(engine.store().find(key).orElseThrow().outcome(),
                            StandardCharsets.UTF_8);
                    // The application's naming strategy, and java.time as Jackson 3 writes it (ISO-8601).
                    assertThat(stored).contains("\"charge_id\"").contains("2026-01-02T03:04:05Z");
                });
    }

    @Test
    void aJsonMapperTheApplicationDefinesIsTheEnginesAndAJsonCodecBeanIsIdemsAlone() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                        IdemJackson3AutoConfiguration.class, IdemAutoConfiguration.class))
                .withPropertyValues("idem.store.kind=memory", "idem.purge.enabled=false");
        JsonMapper kebab = JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE).build();
        runner.withBean(JsonMapper.class, () -> kebab)
                .run(ctx -> assertThat(stored(ctx.getBean(IdempotencyEngine.class))).contains("\"charge-id\""));
        // A codec of idem's own leaves the application's mapper to the application.
        JsonMapper upper = JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE)
                .build();
        runner.withBean(JsonMapper.class, () -> kebab).withBean(JsonCodec.class, () -> Jackson3JsonCodec.of(upper))
                .run(ctx -> {
                    assertThat(ctx.getBean(JsonMapper.class)).isSameAs(kebab);
                    assertThat(stored(ctx.getBean(IdempotencyEngine.class))).contains("\"ChargeId\"");
                });
    }

    private static String stored(IdempotencyEngine engine) {
        IdempotencyKey key = IdempotencyKey.of("s", "charge", "k");
        engine.execute(key, "{}", Receipt.class, c -> new Receipt("ch_1", Instant.parse("2026-01-02T03:04:05Z")));
        return new String(engine.store().find(key).orElseThrow().outcome(), StandardCharsets.UTF_8);
    }
}
