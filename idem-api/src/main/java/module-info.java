/**
 * Keys, the exception hierarchy, the store SPI and the shared time abstractions. No
 * runtime dependencies: JSpecify's nullness annotations are needed only to compile.
 */
module dev.idem.api {
    requires static org.jspecify;

    exports dev.idem.api;
    exports dev.idem.api.store;
    exports dev.idem.api.time;
}
