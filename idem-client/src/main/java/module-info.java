/** Client-side retries that are safe to make; JDK only at runtime. */
module dev.idem.client {
    requires transitive dev.idem.api;
    requires transitive java.net.http;

    exports dev.idem.client;
}
