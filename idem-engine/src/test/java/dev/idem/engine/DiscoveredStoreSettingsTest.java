package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store found on the class path is created with what the builder was told for it: every
 * {@code storeProperty} (as given, and not changeable afterwards) and the builder's clock, so a
 * store module configured only by properties gets its settings.
 */
class DiscoveredStoreSettingsTest {
    @TempDir
    Path dir;

    /** A provider that keeps the context it was created with. */
    public static final class RecordingProvider implements StoreProvider {
        static volatile Context last;

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public IdempotencyStore create(Context context) {
            last = context;
            return MemoryIdempotencyStore.builder().clock(context.clock()).build();
        }
    }

    @Test
    void theProviderGetsThePropertiesAndTheClock() throws IOException {
        String name = "META-INF/services/" + StoreProvider.class.getName();
        Files.createDirectories(dir.resolve("META-INF/services"));
        Files.writeString(dir.resolve(name), RecordingProvider.class.getName(), StandardCharsets.UTF_8);
        ClassLoader only = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                DiscoveredStoreSettingsTest.class.getClassLoader()) {
            @Override
            public java.util.Enumeration<URL> getResources(String resource) throws IOException {
                return resource.equals(name) ? findResources(resource) : super.getResources(resource);
            }
        };
        Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
        try (IdempotencyEngine engine = IdempotencyEngine.builder().classLoader(only).clock(clock)
                .storeProperty("url", "memory://a").storeProperty("pool", "4").build()) {
            assertThat(engine.store()).isInstanceOf(MemoryIdempotencyStore.class);
        }
        StoreProvider.Context context = RecordingProvider.last;
        assertThat(context.properties()).isEqualTo(Map.of("url", "memory://a", "pool", "4"));
        assertThat(context.clock()).isSameAs(clock);
    }
}
