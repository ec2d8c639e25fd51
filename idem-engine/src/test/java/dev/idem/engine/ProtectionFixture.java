package dev.idem.engine;

import dev.idem.engine.protection.KeyVersion;
import dev.idem.store.memory.MemoryIdempotencyStore;
import dev.idem.testsupport.MutableClock;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.UnaryOperator;

/**
 * What the protection tests share: a memory store behind {@link FaultyStore} on a simulated
 * clock, engines over it, keys, and byte searches.
 */
final class ProtectionFixture {
    /** A card number no stored byte may show once outcomes are encrypted. */
    static final String PAN = "4242424242424242";

    final MutableClock clock = new MutableClock();
    final FaultyStore store = new FaultyStore(MemoryIdempotencyStore.builder().clock(clock).build());

    /** An engine over the store, on the simulated clock, with {@code extra} settings. */
    IdempotencyEngine engine(UnaryOperator<IdempotencyEngineBuilder> extra) {
        return extra.apply(IdempotencyEngine.builder().store(store).ticker(ClockTicker.of(clock)).sleeper(clock::advance))
                .build();
    }

    /** A 32-byte key whose bytes are all {@code fill}: distinct per fill, and easy to search for. */
    static KeyVersion secretKey(String id, int fill) {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) fill);
        return KeyVersion.of(id, secret);
    }

    static boolean contains(byte[] haystack, String needle) {
        return contains(haystack, needle.getBytes(StandardCharsets.UTF_8));
    }

    static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
