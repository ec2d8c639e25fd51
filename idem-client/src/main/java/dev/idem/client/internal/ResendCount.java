package dev.idem.client.internal;

import io.opentelemetry.api.trace.Span;

/**
 * OpenTelemetry's {@code http.request.resend_count}, set where the OpenTelemetry API is present and
 * a span is current; nothing at all where it is absent (the API is an optional dependency: no class
 * of it is loaded unless it is on the class or module path). Not API.
 */
public final class ResendCount {
    /** The attribute's name in OpenTelemetry's HTTP semantic conventions. */
    public static final String ATTRIBUTE = "http.request.resend_count";

    private static final boolean PRESENT = present();

    private ResendCount() {
    }

    private static boolean present() {
        try {
            Class.forName("io.opentelemetry.api.trace.Span", false, ResendCount.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The span current on this thread, to record a request's re-sends on, or null if there is none
     * (or no OpenTelemetry). Taken when a request is sent, so that attempts made later on other
     * threads record on the same span.
     */
    public static Object currentSpan() {
        return PRESENT ? Otel.current() : null;
    }

    /**
     * Records that {@code attempt} (2 for the first re-send) is going out: the span's
     * {@value #ATTRIBUTE} becomes {@code attempt - 1}, so it ends with the number of re-sends.
     */
    public static void resending(Object span, int attempt) {
        if (span != null && attempt > 1) {
            Otel.set(span, attempt - 1);
        }
    }

    /** Every reference to OpenTelemetry's types, in a class loaded only when they are present. */
    private static final class Otel {
        static Object current() {
            Span span = Span.current();
            return span.getSpanContext().isValid() ? span : null;
        }

        static void set(Object span, long resends) {
            ((Span) span).setAttribute(ATTRIBUTE, resends);
        }
    }
}
