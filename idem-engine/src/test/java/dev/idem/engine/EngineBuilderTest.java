package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.time.Deadline;
import dev.idem.api.time.Ticker;
import dev.idem.engine.protection.KeyProvider;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class EngineBuilderTest {
    private final IdempotencyEngineBuilder b = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create());

    @Test
    void settersRejectBadValuesAtOnceNamingThem() {
        assertThatThrownBy(() -> b.lease(Duration.ZERO)).hasMessageContaining("lease must be positive");
        assertThatThrownBy(() -> b.ttl(Duration.ofSeconds(-1))).hasMessageContaining("ttl must be positive");
        assertThatThrownBy(() -> b.nearCache(0)).hasMessageContaining("nearCache maxEntries must be positive but was 0");
        assertThatThrownBy(() -> b.maxRequestBytes(-5)).hasMessageContaining("-5");
        assertThatThrownBy(() -> b.completeAttempts(11)).hasMessageContaining("1..10");
        assertThatThrownBy(() -> b.excludeFromFingerprint("no-slash")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InProgressPolicy.waitUpTo(Duration.ZERO)).hasMessageContaining("maxWait");
    }

    @Test
    void settersRefuseToBeSetTwice() {
        b.lease(Duration.ofSeconds(5));
        assertThatThrownBy(() -> b.lease(Duration.ofSeconds(6))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lease was already set");
        assertThatThrownBy(() -> b.store(MemoryIdempotencyStore.create())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void buildRejectsContradictions() {
        assertThatThrownBy(() -> b.lease(Duration.ofHours(2)).ttl(Duration.ofHours(1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than ttl");
        assertThatThrownBy(() -> CallOptions.builder().lease(Duration.ofMinutes(5)).ttl(Duration.ofMinutes(1)).build())
                .isInstanceOf(IllegalArgumentException.class);
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .ttl(Duration.ofMinutes(1)).lease(Duration.ofSeconds(30)).build();
        assertThatThrownBy(() -> engine.execute(IdempotencyKey.of("s", "o", "k"), "{}", String.class,
                CallOptions.builder().lease(Duration.ofMinutes(2)).build(), ctx -> "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than ttl");
    }

    @Test
    void defaultsAreCallOptionsThatACallOverridesOneByOne() {
        MemoryIdempotencyStore store = MemoryIdempotencyStore.create();
        CallOptions base = CallOptions.builder().ttl(Duration.ofMinutes(10)).excludeFromFingerprint("/sentAt").build();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).defaults(base)
                .lease(Duration.ofSeconds(5)).build();
        AtomicInteger runs = new AtomicInteger();
        IdempotencyKey key = IdempotencyKey.of("s", "o", "defaults");

        engine.execute(key, "{\"amount\":1,\"sentAt\":\"a\"}", String.class, ctx -> "r" + runs.incrementAndGet());
        Result<String> again = engine.execute(key, "{\"amount\":1,\"sentAt\":\"b\"}", String.class,
                ctx -> "r" + runs.incrementAndGet());
        engine.execute(IdempotencyKey.of("s", "o", "override"), "{}", String.class,
                CallOptions.builder().ttl(Duration.ofHours(2)).build(), ctx -> "r" + runs.incrementAndGet());

        assertThat(again.replayed()).isTrue();
        assertThat(runs).hasValue(2);
        Instant now = Instant.now();
        assertThat(store.find(key).orElseThrow().expiresAt()).isBefore(now.plus(Duration.ofMinutes(11)));
        assertThat(store.find(IdempotencyKey.of("s", "o", "override")).orElseThrow().expiresAt())
                .isAfter(now.plus(Duration.ofHours(1)));
    }

    @Test
    void defaultsComeFirstOnceWithoutADeadlineAndAreCheckedAtBuild() {
        CallOptions withDeadline = CallOptions.builder()
                .deadline(Deadline.after(Duration.ofSeconds(1), Ticker.system()))
                .build();
        assertThatThrownBy(() -> IdempotencyEngine.builder().defaults(withDeadline))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deadline");
        assertThatThrownBy(() -> IdempotencyEngine.builder().ttl(Duration.ofHours(1)).defaults(CallOptions.defaults()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("before ttl");
        assertThatThrownBy(() -> IdempotencyEngine.builder().defaults(CallOptions.defaults())
                .defaults(CallOptions.defaults())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("defaults was already set");
        assertThatThrownBy(() -> IdempotencyEngine.builder()
                .defaults(CallOptions.builder().ttl(Duration.ofHours(1)).build()).ttl(Duration.ofHours(2)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("ttl was already set");
        assertThatThrownBy(() -> b.defaults(CallOptions.builder().ttl(Duration.ofSeconds(10)).build()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease (PT30S) must be shorter");
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .defaults(CallOptions.builder().ttl(Duration.ofMinutes(1))
                        .inProgress(InProgressPolicy.waitUpTo(Duration.ofMinutes(2))).lease(Duration.ofSeconds(5))
                        .build()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not exceed ttl");
    }

    @Test
    void everySettingRefusesASecondValueNamingIt() {
        KeyRing keys = KeyRing.of(ProtectionFixture.secretKey("k1", 1));
        Map<String, Consumer<IdempotencyEngineBuilder>> settings = new LinkedHashMap<>();
        settings.put("classLoader", x -> x.classLoader(getClass().getClassLoader()));
        settings.put("clock", x -> x.clock(Clock.systemUTC()));
        settings.put("retryAfterHint", x -> x.retryAfterHint(Duration.ofSeconds(2)));
        settings.put("failureClassifier", x -> x.failureClassifier(FailureClassifier.ALL_TRANSIENT));
        settings.put("completeAttempts", x -> x.completeAttempts(2));
        settings.put("minBudgetLease", x -> x.minBudgetLease(Duration.ofSeconds(2)));
        settings.put("objectMapper", x -> x.objectMapper(new ObjectMapper()));
        settings.put("jsonCodec", x -> x.jsonCodec(JsonCodec.jackson2(new ObjectMapper())));
        settings.put("maxRequestBytes", x -> x.maxRequestBytes(1000));
        settings.put("maxOutcomeBytes", x -> x.maxOutcomeBytes(1000));
        settings.put("ticker", x -> x.ticker(Ticker.system()));
        settings.put("sleeper", x -> x.sleeper(millis -> { }));
        settings.put("random", x -> x.random(() -> 4L));
        settings.put("asyncExecutor", x -> x.asyncExecutor(Runnable::run));
        settings.put("leaseRenewalExecutor", x -> x.leaseRenewalExecutor(Runnable::run));
        settings.put("scheduler", x -> x.scheduler((delay, task) -> () -> { }));
        settings.put("maxPendingWork", x -> x.maxPendingWork(Duration.ofSeconds(2)));
        settings.put("maxAsyncCalls", x -> x.maxAsyncCalls(1));
        settings.put("encryptOutcomes", x -> x.encryptOutcomes(keys));
        settings.put("refuseUnencryptedRecords", IdempotencyEngineBuilder::refuseUnencryptedRecords);
        settings.put("keyedFingerprints", x -> x.keyedFingerprints(keys));
        settings.put("listener", x -> x.listener(IdempotencyListener.NONE));
        settings.put("nearCache", x -> x.nearCache(10));
        settings.forEach((name, set) -> {
            IdempotencyEngineBuilder builder = IdempotencyEngine.builder();
            set.accept(builder);
            assertThatThrownBy(() -> set.accept(builder)).as(name).isInstanceOf(IllegalStateException.class)
                    .hasMessage(name + " was already set");
        });
        IdempotencyEngineBuilder properties = IdempotencyEngine.builder().storeProperty("url", "a");
        assertThat(properties.storeProperty("user", "b")).isSameAs(properties);
        assertThatThrownBy(() -> properties.storeProperty("url", "c")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("store property url was already set");
    }

    @Test
    void settersReturnTheBuilderAndTheSmallestValuesAreAccepted() {
        assertThat(b.retryAfterHint(Duration.ofMillis(1))).isSameAs(b);
        assertThat(b.maxAsyncCalls(1)).isSameAs(b);
        assertThatThrownBy(() -> IdempotencyEngine.builder().maxAsyncCalls(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 but was 0");
        assertThat(b.jsonCodec(JsonCodec.jackson2(new ObjectMapper()))).isSameAs(b);
        b.build().close();
    }

    @Test
    void aKeyProviderWithoutACurrentKeyFailsTheBuild() {
        KeyProvider none = new KeyProvider() {
            @Override
            public KeyVersion current() {
                return null;
            }

            @Override
            public KeyVersion find(String id) {
                return null;
            }
        };
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .keyedFingerprints(none).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyedFingerprints").hasMessageContaining("no current key");
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .encryptOutcomes(none).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("encryptOutcomes").hasMessageContaining("no current key");
        assertThatThrownBy(() -> IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
                .objectMapper(new ObjectMapper()).jsonCodec(JsonCodec.jackson2(new ObjectMapper())).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("both set");
    }
}
