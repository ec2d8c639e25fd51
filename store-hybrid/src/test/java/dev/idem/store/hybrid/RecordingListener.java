package dev.idem.store.hybrid;

import dev.idem.store.hybrid.HybridStoreEvent.Type;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every event, for assertions. */
final class RecordingListener implements HybridStoreListener {
    final List<HybridStoreEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onEvent(HybridStoreEvent event) {
        events.add(event);
    }

    long count(Type type) {
        return events.stream().filter(e -> e.type() == type).count();
    }

    void clear() {
        events.clear();
    }
}
