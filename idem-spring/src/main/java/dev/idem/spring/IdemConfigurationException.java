package dev.idem.spring;

import java.util.Objects;

/**
 * idem cannot work as configured, found before the first call: a route that is not a path
 * pattern or covers nothing, a streaming handler on a covered route, an {@link Idempotent}
 * method whose return type cannot be run once or whose caller cannot be found, the transactional
 * mode without its JDBC pieces. It names the setting at fault ({@link #setting()}: an
 * {@code idem.*} property or an annotated method) and the action that fixes it; the Spring Boot
 * starters report both in Boot's "APPLICATION FAILED TO START" report.
 */
public class IdemConfigurationException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The property or annotation at fault. */
    private final String setting;
    /** What is wrong. */
    private final String problem;
    /** What to do about it. */
    private final String action;

    /**
     * Creates the exception.
     *
     * @param setting the {@code idem.*} property (with its index, {@code idem.http.routes[1]}) or
     *     the annotated method ({@code @Idempotent on PaymentService.pay}) at fault
     * @param problem what is wrong, naming the setting and its value
     * @param action what to do about it
     */
    public IdemConfigurationException(String setting, String problem, String action) {
        this(setting, problem, action, null);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param setting the property or annotated method at fault
     * @param problem what is wrong
     * @param action what to do about it
     * @param cause what was thrown while checking, or null
     */
    public IdemConfigurationException(String setting, String problem, String action, Throwable cause) {
        super(problem + " Action: " + action, cause);
        this.setting = Objects.requireNonNull(setting, "setting");
        this.problem = Objects.requireNonNull(problem, "problem");
        this.action = Objects.requireNonNull(action, "action");
    }

    /**
     * The {@code idem.*} property or the annotated method at fault.
     *
     * @return the setting
     */
    public String setting() {
        return setting;
    }

    /**
     * What is wrong, without the action.
     *
     * @return the description
     */
    public String problem() {
        return problem;
    }

    /**
     * What to do about it.
     *
     * @return the action
     */
    public String action() {
        return action;
    }
}
