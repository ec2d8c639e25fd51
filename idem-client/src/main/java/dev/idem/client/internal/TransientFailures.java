package dev.idem.client.internal;

import java.io.IOException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;

/** Exception rules shared by the generic and the HTTP classifiers. Not API. */
public final class TransientFailures {

    private TransientFailures() {}

    /**
     * True for failures a repeat can cure. TLS handshake and peer verification failures are excluded:
     * they are configuration errors that a repeat only reproduces.
     */
    public static boolean isTransient(Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof SSLHandshakeException || t instanceof SSLPeerUnverifiedException) {
            return false;
        }
        return t instanceof IOException || t instanceof TimeoutException;
    }

    /** Strips the wrappers that async APIs put around the real failure. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** A short label for listeners: the kind of failure, then the exception's own words. */
    public static String describe(Throwable failure) {
        Throwable t = unwrap(failure);
        String kind;
        if (t instanceof HttpConnectTimeoutException) {
            kind = "connect timeout";
        } else if (t instanceof HttpTimeoutException || t instanceof TimeoutException) {
            kind = "timeout";
        } else if (t instanceof java.net.ConnectException) {
            kind = "connect failure";
        } else if (t instanceof IOException) {
            kind = "I/O failure";
        } else {
            kind = "failure";
        }
        String message = t.getMessage();
        return kind + " (" + t.getClass().getSimpleName() + (message == null ? "" : ": " + message) + ")";
    }
}
