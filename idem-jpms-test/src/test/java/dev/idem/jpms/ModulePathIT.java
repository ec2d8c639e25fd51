package dev.idem.jpms;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every published jar on the module path. The list of published jars is not written here: it
 * is every artifact {@code idem-bom} manages, cross-checked against the reactor's modules that
 * deploy a jar ({@link PublishedModules}), so a new module cannot be forgotten. Each has a
 * stable module name, its root package (a {@code module-info}, or an
 * {@code Automatic-Module-Name} in its manifest, never one derived from the file name); the
 * explicit modules export their API packages and no {@code .internal} one; all of them boot
 * together as one module layer, where the engine runs a call and every store provider is found.
 */
class ModulePathIT {
    private static final Map<String, Path> PUBLISHED = jarsOf(PublishedModules.fromBom());

    @Test
    void theBomListsExactlyTheModulesThatDeployAJar() {
        assertThat(PublishedModules.fromBom())
                .as("dev.idem artifacts in idem-bom/pom.xml vs reactor modules that deploy a jar;"
                        + " a new published module goes into idem-bom and idem-jpms-test/pom.xml")
                .isEqualTo(PublishedModules.fromReactor());
    }

    @Test
    void everyPublishedJarHasAStableModuleNameItsRootPackage() throws IOException {
        Map<String, String> wrong = new TreeMap<>();
        for (Map.Entry<String, Path> e : PUBLISHED.entrySet()) {
            ModuleDescriptor d = onlyModule(e.getValue());
            String root = rootPackage(d.packages());
            String declared = declaredName(e.getValue(), d);
            if (declared == null) {
                wrong.put(e.getKey(), "no module-info.class and no Automatic-Module-Name in its manifest"
                        + " (add <Automatic-Module-Name>" + root + "</Automatic-Module-Name> to its maven-jar-plugin"
                        + " manifestEntries)");
            } else if (!declared.equals(root)) {
                wrong.put(e.getKey(), "module name " + declared + " is not its root package " + root);
            }
        }
        assertThat(wrong).as("published jars without a stable module name").isEmpty();
    }

    @Test
    void explicitModulesExportEveryApiPackageAndNoInternalOne() {
        List<String> explicit = new ArrayList<>();
        PUBLISHED.forEach((artifact, jar) -> {
            ModuleDescriptor d = onlyModule(jar);
            if (d.isAutomatic()) {
                return;
            }
            explicit.add(artifact);
            Set<String> exported = d.exports().stream()
                    .filter(x -> !x.isQualified())
                    .map(ModuleDescriptor.Exports::source)
                    .collect(Collectors.toCollection(TreeSet::new));
            Set<String> api = d.packages().stream()
                    .filter(p -> !p.contains(".internal"))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(exported).as(artifact + " exports").isEqualTo(api);
        });
        assertThat(explicit).as("jars with a module-info").contains("idem-api", "idem-store-memory", "idem-client");
    }

    @Test
    void thePublishedJarsBootTogetherAsOneLayerWhereTheEngineRunsAndEveryStoreIsFound() throws Exception {
        ModuleFinder finder = ModuleFinder.of(modulePath().toArray(Path[]::new));
        Map<String, Path> names = new LinkedHashMap<>();
        PUBLISHED.forEach((artifact, jar) -> names.put(onlyModule(jar).name(), jar));
        // All modules as roots, as "--add-modules ALL-MODULE-PATH" does: an automatic module
        // (the engine) reads every module but pulls in no explicit one (Jackson) by itself.
        Set<String> roots = finder.findAll().stream().map(r -> r.descriptor().name()).collect(Collectors.toSet());
        assertThat(roots).containsAll(names.keySet());
        ModuleLayer boot = ModuleLayer.boot();
        Configuration cf = boot.configuration().resolve(finder, ModuleFinder.of(), roots);
        ModuleLayer layer = boot.defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());

        names.forEach((name, jar) -> {
            Module module = layer.findModule(name).orElseThrow(() -> new AssertionError(name + " not in the layer"));
            assertThat(module.getPackages()).as(name).isEqualTo(onlyModule(jar).packages());
        });

        ClassLoader loader = layer.findLoader("dev.idem.api");
        Class<?> service = loader.loadClass("dev.idem.api.store.StoreProvider");
        Set<String> providers = new TreeSet<>();
        for (Object provider : ServiceLoader.load(layer, service)) {
            providers.add(provider.getClass().getName());
        }
        assertThat(providers).as("StoreProviders found in the layer").isEqualTo(declaredStoreProviders());

        assertThat(runOneCall(layer)).isEqualTo("charged");
        assertThat(layer.findLoader("dev.idem.engine").loadClass("dev.idem.engine.IdempotencyEngine").getModule()
                .getName()).isEqualTo("dev.idem.engine");
    }

    @Test
    void theJdkOnlyModulesBootOnTheirOwnAndServeTheMemoryStoreAndTheClient() throws Exception {
        Set<String> roots = Set.of("dev.idem.api", "dev.idem.store.memory", "dev.idem.client");
        List<Path> jars = new ArrayList<>();
        PUBLISHED.values().stream().filter(j -> roots.contains(onlyModule(j).name())).forEach(jars::add);
        ModuleFinder finder = ModuleFinder.of(jars.toArray(Path[]::new));
        ModuleLayer boot = ModuleLayer.boot();
        Configuration cf = boot.configuration().resolveAndBind(finder, ModuleFinder.of(), roots);
        ModuleLayer layer = boot.defineModulesWithOneLoader(cf, ClassLoader.getPlatformClassLoader());

        Class<?> service = layer.findLoader("dev.idem.api").loadClass("dev.idem.api.store.StoreProvider");
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

    /** An engine over the memory store, built and called inside the layer (reflectively: other loader). */
    private static Object runOneCall(ModuleLayer layer) throws Exception {
        ClassLoader loader = layer.findLoader("dev.idem.engine");
        Class<?> keyType = loader.loadClass("dev.idem.api.IdempotencyKey");
        Class<?> storeType = loader.loadClass("dev.idem.api.store.IdempotencyStore");
        Class<?> workType = loader.loadClass("dev.idem.engine.Work");
        Class<?> engineType = loader.loadClass("dev.idem.engine.IdempotencyEngine");
        Object store = loader.loadClass("dev.idem.store.memory.MemoryIdempotencyStore").getMethod("create").invoke(null);
        Object builder = engineType.getMethod("builder").invoke(null);
        builder.getClass().getMethod("store", storeType).invoke(builder, store);
        Object engine = builder.getClass().getMethod("build").invoke(builder);
        Object key = keyType.getMethod("of", String.class, String.class, String.class).invoke(null, "s", "op", "k1");
        InvocationHandler handler = (proxy, method, args) -> switch (method.getName()) {
            case "execute" -> "charged";
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> "work";
        };
        Object work = Proxy.newProxyInstance(loader, new Class<?>[] {workType}, handler);
        Method call = engineType.getMethod("call", keyType, Object.class, Class.class, workType);
        return call.invoke(engine, key, "{\"amount\":1}", String.class, work);
    }

    /** The provider classes the published jars declare in META-INF/services. */
    private static Set<String> declaredStoreProviders() throws IOException {
        Set<String> classes = new TreeSet<>();
        for (Path jar : PUBLISHED.values()) {
            try (JarFile f = new JarFile(jar.toFile())) {
                JarEntry services = f.getJarEntry("META-INF/services/dev.idem.api.store.StoreProvider");
                if (services != null) {
                    String text = new String(f.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8);
                    text.lines().map(l -> l.replaceAll("#.*", "").trim()).filter(l -> !l.isEmpty()).forEach(classes::add);
                }
            }
        }
        assertThat(classes).contains("dev.idem.store.memory.MemoryStoreProvider");
        return classes;
    }

    /**
     * The test class path's jars as a module path. Where two third-party jars hold the same
     * package (spring-jcl and commons-logging both ship {@code org.apache.commons.logging}), the
     * first one wins, as on the class path; the module path would refuse the pair.
     */
    private static List<Path> modulePath() {
        Set<String> seen = new HashSet<>();
        List<Path> kept = new ArrayList<>();
        for (Path jar : classPathJars()) {
            Set<String> packages = onlyModule(jar).packages();
            boolean ours = PUBLISHED.containsValue(jar);
            if (!ours && packages.stream().anyMatch(seen::contains)) {
                continue;
            }
            seen.addAll(packages);
            kept.add(jar);
        }
        return kept;
    }

    private static String declaredName(Path jar, ModuleDescriptor d) throws IOException {
        if (!d.isAutomatic()) {
            return d.name();
        }
        try (JarFile f = new JarFile(jar.toFile())) {
            return f.getManifest() == null ? null : f.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        }
    }

    /** The shortest package, which every other package must start with. */
    private static String rootPackage(Set<String> packages) {
        String root = packages.stream().min((a, b) -> Integer.compare(a.length(), b.length())).orElse("");
        boolean common = packages.stream().allMatch(p -> p.equals(root) || p.startsWith(root + "."));
        return common ? root : "(none: packages " + new TreeSet<>(packages) + " share no root)";
    }

    private static ModuleDescriptor onlyModule(Path jar) {
        Set<ModuleReference> all = ModuleFinder.of(jar).findAll();
        assertThat(all).as(jar.toString()).hasSize(1);
        return all.iterator().next().descriptor();
    }

    private static List<Path> classPathJars() {
        return Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .map(Path::of)
                .filter(p -> p.getFileName().toString().endsWith(".jar"))
                .filter(p -> !p.getFileName().toString().matches(".*-(sources|javadoc|tests)\\.jar"))
                .collect(Collectors.toList());
    }

    /** Each artifact's jar on the test class path (a reactor build after "package"). */
    private static Map<String, Path> jarsOf(Set<String> artifacts) {
        Map<String, Path> jars = new TreeMap<>();
        List<String> missing = new ArrayList<>();
        for (String artifact : artifacts) {
            List<Path> found = classPathJars().stream()
                    .filter(p -> p.getFileName().toString().matches(artifact + "-\\d.*\\.jar"))
                    .collect(Collectors.toList());
            if (found.size() == 1) {
                jars.put(artifact, found.get(0));
            } else {
                missing.add(artifact + " (" + found.size() + " jars)");
            }
        }
        assertThat(missing).as("published artifacts whose jar is not on idem-jpms-test's class path: add them as"
                + " dependencies of idem-jpms-test/pom.xml (and run 'verify', so modules are packaged)").isEmpty();
        return jars;
    }
}
