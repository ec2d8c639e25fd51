package dev.idem.http.internal;

/**
 * Carries a response the storage policy refuses (a 5xx, say) out of the engine's work, so
 * the engine releases the key; the response is still sent. Not API.
 */
public final class UnstoredResponse extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient StoredResponse response;

    /** Wraps {@code response}. */
    public UnstoredResponse(StoredResponse response) {
        super("response with status " + response.status() + " is not stored; the key is released", null, false,
                false);
        this.response = response;
    }

    /** The response to send. */
    public StoredResponse response() {
        return response;
    }
}
