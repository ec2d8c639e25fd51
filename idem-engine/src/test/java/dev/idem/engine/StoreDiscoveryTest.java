package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.StoreProvider;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreDiscoveryTest {
    @TempDir
    Path dir;

    /** A second provider, registered only through the class loader a test builds. */
    public static final class OtherProvider implements StoreProvider {
        @Override
        public String name() {
            return "other";
        }

        @Override
        public IdempotencyStore create(Context context) {
            return MemoryIdempotencyStore.builder().clock(context.clock()).build();
        }
    }

    /** A memory store that records whether it was closed. */
    public static final class ClosingStore extends FaultyStore {
        volatile boolean closed;

        ClosingStore() {
            super(MemoryIdempotencyStore.create());
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A provider whose store records being closed. */
    public static final class ClosingProvider implements StoreProvider {
        static volatile ClosingStore last;

        @Override
        public String name() {
            return "closing";
        }

        @Override
        public IdempotencyStore create(Context context) {
            last = new ClosingStore();
            return last;
        }
    }

    /** A loader that sees only the providers registered in {@code dir}, not the memory module's. */
    private ClassLoader loaderWithOnly(String provider) throws IOException {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        String name = "META-INF/services/" + StoreProvider.class.getName();
        Files.writeString(dir.resolve(name), provider, StandardCharsets.UTF_8);
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, StoreDiscoveryTest.class.getClassLoader()) {
            @Override
            public java.util.Enumeration<URL> getResources(String resource) throws IOException {
                return resource.equals(name) ? findResources(resource) : super.getResources(resource);
            }
        };
    }

    @Test
    void closingTheEngineClosesADiscoveredStoreButNeverAGivenOne() throws IOException {
        IdempotencyEngine discovering = IdempotencyEngine.builder()
                .classLoader(loaderWithOnly(ClosingProvider.class.getName())).build();
        ClosingStore discovered = (ClosingStore) discovering.store();
        discovering.close();
        assertThat(discovered.closed).isTrue();

        ClosingStore given = new ClosingStore();
        try (IdempotencyEngine engine = IdempotencyEngine.builder().store(given).build()) {
            assertThat(engine.store()).isSameAs(given);
        }
        assertThat(given.closed).isFalse();
    }

    @Test
    void aDiscoveredStoreIsClosedWhenTheEngineCannotBeBuiltOnIt() throws IOException {
        IdempotencyEngineBuilder b = IdempotencyEngine.builder()
                .classLoader(loaderWithOnly(ClosingProvider.class.getName())).maxOutcomeBytes(Integer.MAX_VALUE);
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ClosingStore");
        assertThat(ClosingProvider.last.closed).isTrue();
    }

    private ClassLoader loaderWith(String... providers) throws IOException {
        Path services = dir.resolve("META-INF/services");
        Files.createDirectories(services);
        Files.writeString(services.resolve(StoreProvider.class.getName()), String.join("\n", providers),
                StandardCharsets.UTF_8);
        // The test class path already registers the memory provider; this adds a second one.
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, StoreDiscoveryTest.class.getClassLoader());
    }

    @Test
    void theOneStoreModuleOnTheClassPathIsSelectedWhenNoStoreIsGiven() {
        IdempotencyEngine engine = IdempotencyEngine.builder().build();
        assertThat(engine.store()).isInstanceOf(MemoryIdempotencyStore.class);
        assertThat(engine.execute(IdempotencyKey.of("s", "op", "k"), "{}", String.class, ctx -> "ok").value())
                .isEqualTo("ok");
    }

    @Test
    void severalProvidersAreAnErrorThatNamesThem() throws IOException {
        ClassLoader loader = loaderWith(OtherProvider.class.getName());
        assertThatThrownBy(() -> IdempotencyEngine.builder().classLoader(loader).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("memory (dev.idem.store.memory.MemoryStoreProvider)")
                .hasMessageContaining("other (" + OtherProvider.class.getName() + ")");
    }

    @Test
    void noProviderIsAnErrorThatSaysWhatToDo() {
        ClassLoader empty = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader());
        assertThatThrownBy(() -> IdempotencyEngine.builder().classLoader(empty).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no StoreProvider was found")
                .hasMessageContaining("builder().store(");
    }

    @Test
    void anExplicitStoreWinsOverDiscovery() throws IOException {
        ClassLoader loader = loaderWith(OtherProvider.class.getName());
        MemoryIdempotencyStore mine = MemoryIdempotencyStore.create();
        assertThat(IdempotencyEngine.builder().classLoader(loader).store(mine).build().store()).isSameAs(mine);
    }
}
