package dev.idem.jaxrs.readme;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Stands in for a payment provider: records each charge and the idempotency key it was given. */
public final class Payments {
    /** The one instance {@link ChargeResource} calls. */
    public static final Payments payments = new Payments();

    final List<String> downstreamKeys = new CopyOnWriteArrayList<>();

    Charge charge(ChargeRequest request, String downstreamKey) {
        downstreamKeys.add(downstreamKey);
        return new Charge("ch_" + downstreamKeys.size(), request.amount());
    }
}
