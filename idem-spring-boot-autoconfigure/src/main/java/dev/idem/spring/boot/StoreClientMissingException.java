package dev.idem.spring.boot;

import dev.idem.spring.IdemConfigurationException;

/**
 * {@code idem.store.kind} names a store whose client the application does not have: thrown at
 * startup, and explained by {@link IdemFailureAnalyzer} in Spring Boot's "APPLICATION FAILED TO
 * START" report with the action to take.
 */
public class StoreClientMissingException extends IdemConfigurationException {
    private static final long serialVersionUID = 1L;

    /** The configured kind. */
    private final String kind;
    /** The missing client bean. */
    private final String client;
    /** The idem module the store needs. */
    private final String module;

    /**
     * Creates the exception.
     *
     * @param kind the configured kind ({@code jdbc}, {@code redis}, {@code dynamodb})
     * @param client the client bean that is missing
     * @param module the idem module the store needs
     */
    public StoreClientMissingException(String kind, String client, String module) {
        super("idem.store.kind", "idem could not create its store: idem.store.kind is '" + kind + "', but the "
                + "application has no " + client + " bean, or " + module + " is not on the class path.",
                "Define a " + client + " bean and add the dependency dev.idem:" + module + ", or set idem.store.kind "
                        + "to auto (the application's DataSource, Redis or DynamoDB client, whichever it has) or to "
                        + "memory (one process only).");
        this.kind = kind;
        this.client = client;
        this.module = module;
    }

    /**
     * The configured kind.
     *
     * @return the kind
     */
    public String kind() {
        return kind;
    }

    /**
     * The missing client.
     *
     * @return a description of the client bean
     */
    public String client() {
        return client;
    }

    /**
     * The idem module the store needs.
     *
     * @return the artifact id
     */
    public String module() {
        return module;
    }
}
