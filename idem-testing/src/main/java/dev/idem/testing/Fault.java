package dev.idem.testing;

/** What happens to the first worker at the point a schedule picks. */
enum Fault {
    /** No fault: the run every other schedule is derived from. */
    NONE("no fault"),
    /** At a step boundary: the worker dies (its connection cut first, so it releases nothing). */
    DIES("the worker dies %s"),
    /** At a store call: the worker dies instead of making it. */
    DIES_BEFORE_CALL("the worker dies before %s"),
    /** At a store call: the call lands, then the worker dies before it reads the reply. */
    DIES_AFTER_CALL("%s lands, then the worker dies"),
    /** At a store call: it fails and reaches nothing; the engine's retries do not help (not retryable). */
    CALL_FAILS("%s fails for good (the store unreachable)"),
    /** At a store call: it fails once and reaches nothing; the engine may retry it. */
    CALL_FAILS_ONCE("%s fails once (retryable)"),
    /** At a store call: the worker's lease lapses and another caller takes the key over and finishes first. */
    LEASE_LAPSES("the lease lapses and another caller takes the key over before %s");

    private final String format;

    Fault(String format) {
        this.format = format;
    }

    /** The faults a store call meets, each in turn. */
    static final Fault[] AT_STORE_CALLS = {DIES_BEFORE_CALL, DIES_AFTER_CALL, CALL_FAILS, CALL_FAILS_ONCE,
        LEASE_LAPSES};

    String describe(String point) {
        return String.format(format, point);
    }
}
