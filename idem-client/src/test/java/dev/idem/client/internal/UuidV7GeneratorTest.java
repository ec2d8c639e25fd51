package dev.idem.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.IdempotencyKeyGenerator;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class UuidV7GeneratorTest {

    @Test
    void layoutFollowsRfc9562() {
        Instant now = Instant.parse("2025-03-01T12:00:00.123Z");
        UuidV7Generator gen =
                new UuidV7Generator(Clock.fixed(now, ZoneOffset.UTC), new SplittableRandom(1));
        UUID id = gen.next();
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(id.getMostSignificantBits() >>> 16).isEqualTo(now.toEpochMilli());
    }

    @Test
    void keysFromOneGeneratorStrictlyIncreaseEvenIfTheClockStallsOrStepsBack() {
        AtomicLong millis = new AtomicLong(1_700_000_000_000L);
        Clock clock =
                new Clock() {
                    @Override
                    public java.time.ZoneId getZone() {
                        return ZoneOffset.UTC;
                    }

                    @Override
                    public Clock withZone(java.time.ZoneId zone) {
                        return this;
                    }

                    @Override
                    public Instant instant() {
                        return Instant.ofEpochMilli(millis.get());
                    }
                };
        UuidV7Generator gen = new UuidV7Generator(clock, new SplittableRandom(7));
        UUID previous = gen.next();
        for (int i = 0; i < 20_000; i++) {
            if (i == 10_000) {
                millis.addAndGet(-5_000); // a wall-clock step backwards
            }
            UUID next = gen.next();
            assertThat(Long.compareUnsigned(next.getMostSignificantBits(), previous.getMostSignificantBits()))
                    .isPositive();
            assertThat(next.version()).isEqualTo(7);
            previous = next;
        }
    }

    @Test
    void defaultGeneratorMakesDistinctHeaderSafeKeys() {
        IdempotencyKeyGenerator gen = IdempotencyKeyGenerator.uuidV7();
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String key = gen.newKey();
            assertThat(key).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
            keys.add(key);
        }
        assertThat(keys).hasSize(1000);
        assertThat(IdempotencyKeyGenerator.randomUuid().newKey()).hasSize(36);
    }
}
