package dev.idem.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@link StoreClientMissingException} into Spring Boot's startup failure report: what is
 * missing, and the action (define the client, add the module, or choose another
 * {@code idem.store.kind}).
 */
public class IdemFailureAnalyzer extends AbstractFailureAnalyzer<StoreClientMissingException> {
    /** Created by Spring Boot from {@code META-INF/spring.factories}. */
    public IdemFailureAnalyzer() {
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, StoreClientMissingException cause) {
        return new FailureAnalysis("idem could not create its store: idem.store.kind is '" + cause.kind()
                + "', but the application has no " + cause.client() + " bean, or " + cause.module()
                + " is not on the class path.",
                "Define a " + cause.client() + " bean and add the dependency dev.idem:" + cause.module()
                        + ", or set idem.store.kind to auto (the application's DataSource, Redis or DynamoDB "
                        + "client, whichever it has) or to memory (one process only).",
                cause);
    }
}
