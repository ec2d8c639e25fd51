package dev.idem.micrometer;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Keeps the {@code operation} tag low-cardinality: the first {@code max} distinct operations
 * keep their name, every later one is reported as {@link IdempotencyMetrics#OTHER_OPERATION}
 * (with one warning). A key's operation can come from a raw URL path (idem-http's default
 * route resolver), and one series per order id would flood the metrics backend and this
 * process's memory alike.
 */
final class OperationBound {
    private static final System.Logger LOG = System.getLogger(OperationBound.class.getName());

    private final int max;
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean warned = new AtomicBoolean();

    OperationBound(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxOperations must be at least 1 but was " + max);
        }
        this.max = max;
    }

    /** The tag value for {@code operation}. */
    String tag(String operation) {
        if (admitted.contains(operation)) {
            return operation;
        }
        // Racing first events may admit a few past the bound; the set still stops growing.
        if (admitted.size() < max) {
            admitted.add(operation);
            return operation;
        }
        if (warned.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "More than {0} distinct idempotency operations: further ones are reported as"
                    + " operation={1}. Are operations built from raw paths? Give idem-http a RouteResolver that"
                    + " returns route templates, or observe calls with a route name.", max,
                    IdempotencyMetrics.OTHER_OPERATION);
        }
        return IdempotencyMetrics.OTHER_OPERATION;
    }
}
