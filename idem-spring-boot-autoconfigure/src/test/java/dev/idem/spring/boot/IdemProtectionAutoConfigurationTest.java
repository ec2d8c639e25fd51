package dev.idem.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.protection.OutcomeFilter;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.ResponseFilter;
import dev.idem.spring.IdemConfigurationException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

/**
 * {@code idem.protection.*}: keys from configuration turn on encryption and keyed fingerprints
 * (with rotation), bad keys are startup refusals ({@link IdemFailureAnalyzer}) naming the property
 * and id but never the key, the actuator masks them, and beans for what properties cannot say (a customizer, an outcome
 * filter, a response filter) reach the engine and the HTTP layer.
 */
class IdemProtectionAutoConfigurationTest {
    private static final String K1 = Base64.getEncoder().encodeToString(bytes(1));
    private static final String K2 = Base64.getEncoder().encodeToString(bytes(2));
    private static final String F1 = Base64.getEncoder().encodeToString(bytes(3));
    private static final AutoConfigurations IDEM = AutoConfigurations.of(IdemAutoConfiguration.class,
            IdemProtectionAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(IDEM)
            .withPropertyValues("idem.purge.enabled=false", "idem.store.kind=memory");

    private static byte[] bytes(int fill) {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) (fill * 17));
        return b;
    }

    private static StoredRecord charge(IdempotencyEngine engine, String key) {
        IdempotencyKey k = IdempotencyKey.of("merchant", "charge", key);
        engine.execute(k, "{\"amount\":100}", Map.class, ctx -> Map.of("card", "4242424242424242"));
        return engine.store().find(k).orElseThrow();
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Test
    void keysFromPropertiesEncryptOutcomesAndKeyFingerprints() {
        runner.withPropertyValues("idem.protection.encryption.keys.k1=" + K1,
                        "idem.protection.fingerprint.keys.f1=" + F1)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    StoredRecord r = charge(ctx.getBean(IdempotencyEngine.class), "a");
                    assertThat(text(r.outcome())).startsWith("E").contains("k1").doesNotContain("4242");
                    assertThat(text(r.fingerprint())).startsWith("K").contains("f1");
                    assertThat(ctx.getBean(IdemProtectionProperties.class).toString()).contains("k1")
                            .doesNotContain(K1).doesNotContain(F1);
                });
    }

    @Test
    void aRotationInPropertiesKeepsOldRecordsReadable() {
        IdempotencyStore shared = dev.idem.store.memory.MemoryIdempotencyStore.create();
        runner.withBean(IdempotencyStore.class, () -> shared)
                .withPropertyValues("idem.protection.encryption.keys.k1=" + K1)
                .run(ctx -> charge(ctx.getBean(IdempotencyEngine.class), "old"));
        runner.withBean(IdempotencyStore.class, () -> shared)
                .withPropertyValues("idem.protection.encryption.keys.k1=" + K1,
                        "idem.protection.encryption.keys.k2=" + K2, "idem.protection.encryption.current-key=k2")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
                    Object old = engine.execute(IdempotencyKey.of("merchant", "charge", "old"), "{\"amount\":100}",
                            Map.class, c -> Map.of()).value();
                    assertThat(old).isEqualTo(Map.of("card", "4242424242424242"));
                    assertThat(text(charge(engine, "new").outcome())).contains("k2").doesNotContain("k1");
                });
    }

    @Test
    void badKeysAreStartupRefusalsNamingThePropertyButNeverTheKey() {
        String notBase64 = K1.substring(0, 20) + "!" + K1.substring(21);
        String tooShort = Base64.getEncoder().encodeToString(new byte[8]);
        // Each configuration with the setting Boot's failure report must name.
        String[][] refusals = {
            {"idem.protection.encryption.keys.k1", "idem.protection.encryption.keys.k1=" + notBase64},
            {"idem.protection.fingerprint.keys.f1", "idem.protection.fingerprint.keys.f1=" + tooShort},
            {"idem.protection.encryption.current-key", "idem.protection.encryption.keys.k1=" + K1,
                "idem.protection.encryption.keys.k2=" + K2},
            {"idem.protection.encryption.current-key", "idem.protection.encryption.keys.k1=" + K1,
                "idem.protection.encryption.current-key=k9"},
            {"idem.protection.fingerprint.current-key", "idem.protection.fingerprint.current-key=f1"},
            {"idem.protection.encryption.refuse-unencrypted", "idem.protection.encryption.refuse-unencrypted=true"}};
        for (String[] refusal : refusals) {
            String setting = refusal[0];
            runner.withPropertyValues(Arrays.copyOfRange(refusal, 1, refusal.length)).run(ctx -> {
                FailureAnalysis report = StartupRefusalsTest.report(ctx);
                assertThat(report.getDescription()).as(setting).startsWith(setting);
                assertThat(report.getAction()).as(setting).isNotBlank();
                assertThat(((IdemConfigurationException) report.getCause()).setting())
                        .isEqualTo(setting);
                StringWriter trace = new StringWriter();
                ctx.getStartupFailure().printStackTrace(new PrintWriter(trace));
                String all = trace + report.getDescription() + report.getAction();
                assertThat(all).doesNotContain(K1.substring(0, 20)).doesNotContain(K2.substring(0, 20))
                        .doesNotContain(notBase64.substring(0, 20)).doesNotContain(tooShort);
            });
        }
    }

    @Test
    void theActuatorMasksTheKeysWhateverShowValuesSays() {
        runner.run(ctx -> {
            SanitizingFunction sanitizer = ctx.getBean(SanitizingFunction.class);
            MapPropertySource source = new MapPropertySource("test", Map.of());
            for (String name : new String[] {"idem.protection.encryption.keys.k1", "idem.protection.fingerprint.keys.f1",
                "idem.protection.encryption.keys[k1]"}) {
                assertThat(sanitizer.apply(new SanitizableData(source, name, K1)).getValue())
                        .isEqualTo(SanitizableData.SANITIZED_VALUE);
            }
            assertThat(sanitizer.apply(new SanitizableData(source, "idem.protection.encryption.current-key", "k1"))
                    .getValue()).isEqualTo("k1");
        });
    }

    @Test
    void theActuatorMasksWhatBacksTheKeysUnderAnyName() {
        runner.withPropertyValues("idem.protection.encryption.keys.k1=" + K1,
                "idem.protection.fingerprint.keys.f1=" + K2).run(ctx -> {
            SanitizingFunction sanitizer = ctx.getBean(SanitizingFunction.class);
            // What /actuator/env shows under systemEnvironment for ${IDEM_OUTCOME_KEY_...} placeholders.
            MapPropertySource environment = new MapPropertySource("systemEnvironment", Map.of());
            assertThat(sanitizer.apply(new SanitizableData(environment, "IDEM_OUTCOME_KEY_2026A", K1)).getValue())
                    .isEqualTo(SanitizableData.SANITIZED_VALUE);
            assertThat(sanitizer.apply(new SanitizableData(environment, "IDEM_OUTCOME_KEY_2026B", K2 + "\n"))
                    .getValue()).isEqualTo(SanitizableData.SANITIZED_VALUE);
            assertThat(sanitizer.apply(new SanitizableData(environment, "HOME", "/home/app")).getValue())
                    .isEqualTo("/home/app");
        });
    }

    @Test
    void beansForWhatPropertiesCannotSayReachTheEngineAndTheHttpLayer() {
        ResponseFilter responseFilter = (key, response) -> response;
        new WebApplicationContextRunner().withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class,
                        IdemProtectionAutoConfiguration.class, IdemWebAutoConfiguration.class))
                .withPropertyValues("idem.purge.enabled=false", "idem.store.kind=memory", "idem.http.routes=/x/**")
                .withBean(IdemEngineCustomizer.class, () -> b -> b.encryptOutcomes(
                        dev.idem.engine.protection.KeyRing.of(dev.idem.engine.protection.KeyVersion.of("vault-7",
                                bytes(5)))))
                .withBean(OutcomeFilter.class, () -> OutcomeFilter.removing("/card"))
                .withBean(ResponseFilter.class, () -> responseFilter)
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    IdempotencyEngine engine = ctx.getBean(IdempotencyEngine.class);
                    StoredRecord r = charge(engine, "b");
                    assertThat(text(r.outcome())).contains("vault-7");
                    Object replayed = engine.execute(IdempotencyKey.of("merchant", "charge", "b"), "{\"amount\":100}",
                            Map.class, c -> Map.of()).value();
                    assertThat(replayed).isEqualTo(Map.of());
                    assertThat(ctx.getBean(HttpIdempotency.class).responseFilter()).isSameAs(responseFilter);
                });
    }
}
