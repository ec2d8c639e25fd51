package dev.idem.engine;

import java.time.Duration;

/** Pauses the calling thread; injected so tests control waiting instead of sleeping. */
@FunctionalInterface
public interface Sleeper {
    /** The real thing: {@link Thread#sleep}. */
    Sleeper SYSTEM = d -> Thread.sleep(Math.max(0, d.toMillis()));

    /** Sleeps for {@code duration}. */
    void sleep(Duration duration) throws InterruptedException;
}
