package dev.idem.store.hybrid;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The store's log records (System.Logger, which goes to java.util.logging when nothing else is
 * installed), captured from every logger under {@code dev.idem.store.hybrid} at every level while
 * open.
 */
final class LogCapture extends Handler implements AutoCloseable {
    private static final Logger ROOT = Logger.getLogger("dev.idem.store.hybrid");

    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Level levelBefore = ROOT.getLevel();

    LogCapture() {
        setLevel(Level.ALL);
        ROOT.setLevel(Level.ALL);
        ROOT.addHandler(this);
    }

    /** The records at {@code level} exactly. */
    List<LogRecord> at(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).toList();
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        ROOT.removeHandler(this);
        ROOT.setLevel(levelBefore);
    }
}
