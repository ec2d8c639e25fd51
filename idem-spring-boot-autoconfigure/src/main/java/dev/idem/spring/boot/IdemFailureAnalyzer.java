package dev.idem.spring.boot;

import dev.idem.spring.IdemConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Turns every startup refusal of idem's own ({@link IdemConfigurationException}: a store whose
 * client is missing, a malformed route or one that covers nothing, a streaming handler on a
 * covered route, an {@code @Idempotent} method idem cannot run, the transactional mode without
 * its JDBC pieces) into Spring Boot's "APPLICATION FAILED TO START" report: the description names
 * the {@code idem.*} property or the annotated method at fault, the action says what to do.
 * Ordered first, so the report is idem's even when the cause chain holds an exception another
 * analyzer knows.
 */
public class IdemFailureAnalyzer extends AbstractFailureAnalyzer<IdemConfigurationException> implements Ordered {
    /** Created by Spring Boot from {@code META-INF/spring.factories}. */
    public IdemFailureAnalyzer() {
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, IdemConfigurationException cause) {
        return new FailureAnalysis(cause.problem(), cause.action(), cause);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
