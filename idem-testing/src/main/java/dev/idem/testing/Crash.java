package dev.idem.testing;

/** The first worker died here: an {@link Error}, so ordinary exception handling in the work lets it through. */
final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash(String where) {
        super("worker crashed " + where + " (injected by the crash tester)", null, false, false);
    }
}
