package dev.idem.store.jdbc;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the test databases before a test class runs, outside its {@code @Timeout}: installing
 * and starting MariaDB on a 2-core machine busy with other builds has been seen to take more
 * than a minute, and a per-test timeout that interrupts the server's start fails every MariaDB
 * test of the run (the holder's class initialisation fails once and for all). Registered for
 * every test class by JUnit's extension auto-detection ({@code junit-platform.properties}).
 */
public final class StartDatabasesFirst implements BeforeAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        Backend.startAll();
    }
}
