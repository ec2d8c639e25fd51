/** Client-side retries that are safe to make; JDK only at runtime. */
@SuppressWarnings("requires-automatic") // the OpenTelemetry API jars are automatic modules, and optional here
module dev.idem.client {
    requires transitive dev.idem.api;
    requires transitive java.net.http;
    // Optional: re-sent attempts set http.request.resend_count on the current span where it is present.
    requires static io.opentelemetry.api;
    requires static io.opentelemetry.context;

    exports dev.idem.client;
}
