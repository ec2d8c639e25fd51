package dev.idem.jpms;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The published jars on the module path: explicit modules export their API packages and no
 * {@code .internal} package, the others have a stable {@code Automatic-Module-Name}, and a
 * module layer of the JDK-only modules boots and finds the memory store as a service.
 */
class ModulePathIT {

    /** Artifacts with a module-info.java, and their module names. */
    private static final Map<String, String> EXPLICIT = Map.of(
            "idem-api", "dev.idem.api",
            "idem-store-memory", "dev.idem.store.memory",
            "idem-client", "dev.idem.client");

    /** Artifacts named by Automatic-Module-Name (a dependency or a module they build on is not modular). */
    private static final Map<String, String> AUTOMATIC = Map.of(
            "idem-engine", "dev.idem.engine",
            "idem-http", "dev.idem.http",
            "idem-store-jdbc", "dev.idem.store.jdbc",
            "idem-store-redis", "dev.idem.store.redis",
            "idem-store-dynamodb", "dev.idem.store.dynamodb",
            "idem-store-hybrid", "dev.idem.store.hybrid",
            "idem-store-tck", "dev.idem.store.tck");

    @Test
    void explicitModulesExportEveryApiPackageAndNoInternalOne() {
        EXPLICIT.forEach((artifact, name) -> {
            ModuleDescriptor d = onlyModule(jar(artifact));
            assertThat(d.name()).as(artifact).isEqualTo(name);
            assertThat(d.isAutomatic()).as(artifact + " has a module-info").isFalse();
            Set<String> exported = d.exports().stream()
                    .filter(e -> !e.isQualified())
                    .map(ModuleDescriptor.Exports::source)
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<String> api = d.packages().stream()
                    .filter(p -> !p.contains(".internal"))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(exported).as(artifact + " exports").isEqualTo(api);
        });
    }

    @Test
    void otherModulesHaveStableAutomaticNames() {
        AUTOMATIC.forEach((artifact, name) -> {
            ModuleDescriptor d = onlyModule(jar(artifact));
            assertThat(d.name()).as(artifact + " Automatic-Module-Name").isEqualTo(name);
        });
    }

    @Test
    void layerBootsAndServesTheMemoryStoreAndTheClient() throws Exception {
        List<Path> jars = new ArrayList<>();
        for (String artifact : EXPLICIT.keySet()) {
            jars.add(jar(artifact));
        }
        ModuleFinder finder = ModuleFinder.of(jars.toArray(Path[]::new));
        ModuleLayer boot = ModuleLayer.boot();
        Configuration cf = boot.configuration().resolveAndBind(finder, ModuleFinder.of(), Set.copyOf(EXPLICIT.values()));
        ModuleLayer layer = boot.defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());

        ClassLoader loader = layer.findLoader("dev.idem.api");
        Class<?> service = loader.loadClass("dev.idem.api.store.StoreProvider");
        assertThat(service.getModule().getName()).isEqualTo("dev.idem.api");
        List<String> providers = new ArrayList<>();
        for (Object provider : ServiceLoader.load(layer, service)) {
            providers.add((String) service.getMethod("name").invoke(provider));
        }
        assertThat(providers).containsExactly("memory");

        Class<?> generator = layer.findLoader("dev.idem.client").loadClass("dev.idem.client.IdempotencyKeyGenerator");
        Object uuidV7 = generator.getMethod("uuidV7").invoke(null);
        String key = (String) generator.getMethod("newKey").invoke(uuidV7);
        assertThat(key).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        assertThat(generator.getModule().getName()).isEqualTo("dev.idem.client");
    }

    private static ModuleDescriptor onlyModule(Path jar) {
        Set<ModuleReference> all = ModuleFinder.of(jar).findAll();
        assertThat(all).as(jar.toString()).hasSize(1);
        return all.iterator().next().descriptor();
    }

    /** The artifact's jar on the test class path (a reactor build after "package"). */
    private static Path jar(String artifactId) {
        List<Path> found = Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .map(Path::of)
                .filter(p -> p.getFileName().toString().matches(artifactId + "-\\d.*\\.jar"))
                .filter(p -> !p.getFileName().toString().matches(".*-(sources|javadoc|tests)\\.jar"))
                .collect(Collectors.toList());
        assertThat(found).as(artifactId + " jar on the class path (run 'verify' so modules are packaged)").hasSize(1);
        return found.get(0);
    }
}
