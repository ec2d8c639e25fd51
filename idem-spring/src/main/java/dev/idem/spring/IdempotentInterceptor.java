package dev.idem.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.idem.api.CallerScope;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.engine.WorkFailedException;
import dev.idem.http.IncomingRequest;
import dev.idem.http.PrincipalResolver;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * Runs {@link Idempotent} methods through the engine (see the annotation for the contract), as
 * a plain Spring AOP interceptor: any auto-proxy creator applies it, and Spring Boot's
 * {@code spring.aop.*} settings decide how beans are proxied. Its collaborators are looked up
 * on first use, so declaring it never initializes the engine early. Thread-safe; parsed
 * expressions and checked annotations are cached per method.
 */
public final class IdempotentInterceptor implements MethodInterceptor {
    private static final Pattern VARIABLE = Pattern.compile("#([A-Za-z_$][A-Za-z0-9_$]*)");
    private static final Pattern POSITIONAL = Pattern.compile("[ap]\\d+");
    private static final boolean WEB = ClassUtils.isPresent(
            "org.springframework.web.context.request.RequestContextHolder", IdempotentInterceptor.class.getClassLoader())
            && ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest",
                    IdempotentInterceptor.class.getClassLoader());

    private final ObjectProvider<IdempotencyEngine> engine;
    private final ObjectProvider<TransactionalExecutor> transactional;
    private final ObjectProvider<PrincipalResolver> principals;
    private final ObjectProvider<CallObserver> observer;
    private final String defaultScope;
    private final CallerSource callers;
    private final ParameterNameDiscoverer names;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final Map<String, Expression> expressions = new ConcurrentHashMap<>();
    private final Map<Method, Idempotent> checked = new ConcurrentHashMap<>();
    /** The transactional methods seen so far, for {@link #checkTransactionalMode()}. */
    private final Set<String> transactionalMethods = new ConcurrentSkipListSet<>();

    /** Where the caller of a call whose annotation names no scope is found. */
    public enum CallerSource {
        /**
         * A servlet or non-web application: the caller known on the calling thread (the servlet
         * request, Spring Security's {@code SecurityContextHolder}); a {@code Mono}'s caller,
         * when the thread knows none, is Spring Security's reactive user at subscription.
         */
        THREAD,
        /**
         * A reactive (WebFlux) application: Spring Security's reactive user, which only a
         * {@code Mono} sees (at subscription); the thread that calls a method knows no caller. A
         * method that returns anything else must name its scope, or {@link #check} refuses it.
         */
        REACTIVE
    }

    /**
     * Creates the interceptor.
     *
     * @param engine the engine
     * @param transactional the JDBC transactional mode, when available
     * @param principals the scoping rule shared with the filter ({@link SpringPrincipals#standard})
     * @param observer what observes each call, when available
     * @param defaultScope the scope of calls with no scope expression and no principal, or null to refuse them
     */
    public IdempotentInterceptor(ObjectProvider<IdempotencyEngine> engine,
            ObjectProvider<TransactionalExecutor> transactional, ObjectProvider<PrincipalResolver> principals,
            ObjectProvider<CallObserver> observer, String defaultScope) {
        this(engine, transactional, principals, observer, defaultScope, CallerSource.THREAD);
    }

    /**
     * Creates the interceptor for an application whose callers are found as {@code callers} says.
     *
     * @param engine the engine
     * @param transactional the JDBC transactional mode, when available
     * @param principals the scoping rule shared with the filter ({@link SpringPrincipals#standard})
     * @param observer what observes each call, when available
     * @param defaultScope the scope of calls with no scope expression and no principal, or null to refuse them
     * @param callers {@link CallerSource#REACTIVE} in a WebFlux application, else {@link CallerSource#THREAD}
     */
    public IdempotentInterceptor(ObjectProvider<IdempotencyEngine> engine,
            ObjectProvider<TransactionalExecutor> transactional, ObjectProvider<PrincipalResolver> principals,
            ObjectProvider<CallObserver> observer, String defaultScope, CallerSource callers) {
        this(engine, transactional, principals, observer, defaultScope, callers, new DefaultParameterNameDiscoverer());
    }

    IdempotentInterceptor(ObjectProvider<IdempotencyEngine> engine, ObjectProvider<TransactionalExecutor> transactional,
            ObjectProvider<PrincipalResolver> principals, ObjectProvider<CallObserver> observer, String defaultScope,
            CallerSource callers, ParameterNameDiscoverer names) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.transactional = Objects.requireNonNull(transactional, "transactional");
        this.principals = Objects.requireNonNull(principals, "principals");
        this.observer = Objects.requireNonNull(observer, "observer");
        this.defaultScope = defaultScope == null || defaultScope.isBlank() ? null : defaultScope;
        this.callers = Objects.requireNonNull(callers, "callers");
        this.names = names;
    }

    /**
     * Refuses, before any call, an {@link Idempotent} method whose return type idem cannot run
     * once (a {@code Flux}, a {@code Future}, any reactive type but {@code Mono}), or an
     * asynchronous one in the blocking transactional mode.
     *
     * @param method an annotated method
     * @throws IdemConfigurationException naming the method and what it should return instead
     */
    public static void checkReturnType(Method method) {
        Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        if (idempotent != null) {
            AsyncReturns.check(method, idempotent);
        }
    }

    /**
     * Refuses, before any call, an {@link Idempotent} method this interceptor cannot run: a
     * return type it cannot run once ({@link #checkReturnType}), or, in a reactive application
     * ({@link CallerSource#REACTIVE}), a method that returns no {@code Mono} and names no scope,
     * since the thread that calls it knows no caller (without this check, every caller would
     * be refused, or share {@code idem.aop.default-scope}). The Boot starters run it for every
     * advised method at startup; the interceptor runs it on each method's first call.
     *
     * @param method an annotated method (others are ignored)
     * @throws IdemConfigurationException naming the method and what to do
     */
    public void check(Method method) {
        annotation(method);
    }

    /**
     * Refuses the transactional mode on the methods checked so far when it cannot run here (no
     * JDBC store, no unique DataSource or transaction manager): the Boot starters call it once
     * every bean is created, so such a method fails the startup instead of every call.
     *
     * @throws IdemConfigurationException naming the methods and what the mode needs
     */
    public void checkTransactionalMode() {
        if (transactionalMethods.isEmpty()) {
            return;
        }
        TransactionalExecutor executor = transactional.getIfAvailable();
        Optional<String> missing = executor == null
                ? Optional.of("idem-store-jdbc or spring-jdbc is not on the class path") : executor.unavailable();
        if (missing.isPresent()) {
            String methods = String.join(", ", transactionalMethods);
            throw new IdemConfigurationException("@Idempotent(transactional = true) on " + methods,
                    "@Idempotent(transactional = true) on " + methods + " asks for the JDBC transactional mode, "
                            + "which cannot run here: " + missing.get() + ". Every call would fail.",
                    "Use the JDBC store (idem-store-jdbc over the application's DataSource, idem.store.kind=jdbc or "
                            + "auto) with a unique DataSource and transaction manager, or remove "
                            + "transactional = true from these methods.");
        }
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass()
                : AopUtils.getTargetClass(target);
        Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
        Idempotent idempotent = annotation(method);
        if (idempotent == null) {
            return invocation.proceed();
        }
        Object[] args = invocation.getArguments();
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, method, args, names);
        String key = String.valueOf(evaluate(idempotent.key(), context, "key", method));
        Object request = !idempotent.request().isEmpty() ? evaluate(idempotent.request(), context, "request", method)
                : args.length == 1 ? args[0] : Arrays.asList(args);
        if (request instanceof String) {
            // The engine reads a String as JSON text; an argument is a value, so fingerprint it as one.
            request = TextNode.valueOf((String) request);
        }
        AsyncReturns.Kind kind = AsyncReturns.kind(method);
        if (kind == AsyncReturns.Kind.MONO) {
            // The caller of a Mono may only be known when it is subscribed (Spring Security's reactive
            // context); in a reactive application it is only known then, whatever the thread holds.
            Optional<String> known;
            if (!idempotent.scope().isEmpty()) {
                known = scope(idempotent.scope(), context).or(() -> Optional.ofNullable(defaultScope))
                        .map(CallerScope::of);
                if (known.isEmpty()) {
                    return MonoReturns.refused(missingScope(method));
                }
            } else {
                known = callers == CallerSource.REACTIVE ? Optional.empty() : threadCaller();
            }
            return MonoReturns.invoke(engine.getObject(), method, known,
                    principals.getIfAvailable(() -> SpringPrincipals.standard(null)), defaultScope,
                    idempotent.operation(), key, request, invocation);
        }
        String scope = idempotent.scope().isEmpty() ? callerScope(method)
                : scope(idempotent.scope(), context).or(() -> Optional.ofNullable(defaultScope)).map(CallerScope::of)
                        .orElseThrow(() -> missingScope(method));
        // An invalid key (too long, not visible ASCII) is the caller's error: InvalidIdempotencyKeyException, 400.
        IdempotencyKey idempotencyKey = IdempotencyKey.of(scope, idempotent.operation(), key);
        if (kind == AsyncReturns.Kind.STAGE) {
            return AsyncReturns.stage(engine.getObject(), idempotencyKey, request, method, invocation);
        }
        Type returnType = method.getGenericReturnType();
        TypeReference<Object> type = new TypeReference<>() {
            @Override
            public Type getType() {
                return returnType == void.class ? Object.class : returnType;
            }
        };
        Work<Object> work = ctx -> {
            try {
                return invocation.proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new UndeclaredThrowableException(t);
            }
        };
        Object fingerprinted = request;
        try {
            Result<Object> result = observer.getIfAvailable(() -> CallObserver.NONE).observe(idempotent.operation(),
                    idempotencyKey, () -> run(idempotent, method, idempotencyKey, fingerprinted, type, work));
            return result.value();
        } catch (WorkFailedException e) {
            // The engine wraps checked exceptions; the caller sees what the method threw.
            throw e.getCause();
        }
    }

    private Result<Object> run(Idempotent idempotent, Method method, IdempotencyKey key, Object request,
            TypeReference<Object> type, Work<Object> work) {
        if (idempotent.transactional()) {
            TransactionalExecutor executor = transactional.getIfAvailable();
            if (executor == null) {
                throw new IllegalStateException("@Idempotent(transactional = true) on " + method
                        + " needs idem-store-jdbc and spring-jdbc on the class path");
            }
            return executor.execute(key, request, type, CallOptions.defaults(), work);
        }
        return engine.getObject().execute(key, request, type, CallOptions.defaults(), work);
    }

    /**
     * The scope the annotation's expression names; empty when it evaluates to null or an empty
     * name, or fails on a missing value ({@code #caller.name} for an anonymous caller, whose
     * {@code Principal} argument is null): such a call has no caller, and is answered as one
     * without a principal is (the default scope, else {@link MissingScopeException}, 401), never
     * with an expression error (500).
     */
    private Optional<String> scope(String text, MethodBasedEvaluationContext context) {
        Object value;
        try {
            value = expressions.computeIfAbsent(text, parser::parseExpression).getValue(context);
        } catch (org.springframework.expression.EvaluationException e) {
            return Optional.empty();
        }
        return value == null ? Optional.empty() : Optional.of(String.valueOf(value)).filter(v -> !v.isEmpty());
    }

    /** The caller's scope by the rule the filter uses, else the configured default, else refused. */
    private String callerScope(Method method) {
        Optional<String> principal = threadCaller();
        if (principal.isPresent()) {
            return principal.get();
        }
        if (defaultScope != null) {
            return CallerScope.of(defaultScope);
        }
        throw missingScope(method);
    }

    /**
     * The scope of the caller known on this thread by the filter's rule (the servlet request,
     * Spring Security's context), in {@link CallerScope}'s encoding, as the filter keys it.
     */
    private Optional<String> threadCaller() {
        IncomingRequest request = WEB ? ServletRequestView.current() : SpringPrincipals.NO_REQUEST;
        PrincipalResolver resolver = principals.getIfAvailable(() -> SpringPrincipals.standard(null));
        return resolver.scope(request).filter(p -> !p.isEmpty());
    }

    static MissingScopeException missingScope(Method method) {
        return new MissingScopeException("@Idempotent on " + method.getDeclaringClass().getSimpleName() + "."
                + method.getName() + " has no scope: no caller is authenticated (Spring Security, the servlet "
                + "container or the principal header) and the annotation names no scope. Give one with "
                + "scope = \"...\" (a tenant or account from trusted state, never the request body), or set "
                + "idem.aop.default-scope to share one key space among all unauthenticated callers");
    }

    private Idempotent annotation(Method method) {
        Idempotent found = checked.get(method);
        if (found != null) {
            return found;
        }
        found = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        if (found == null) {
            return null;
        }
        AsyncReturns.check(method, found);
        if (callers == CallerSource.REACTIVE && found.scope().isEmpty()
                && AsyncReturns.kind(method) != AsyncReturns.Kind.MONO) {
            throw noReactiveCaller(method);
        }
        String[] parameters = names.getParameterNames(method);
        for (String text : new String[] {found.key(), found.scope(), found.request()}) {
            checkVariables(text, parameters, method);
        }
        if (found.transactional()) {
            transactionalMethods.add(method.getDeclaringClass().getName() + "." + method.getName());
        }
        checked.put(method, found);
        return found;
    }

    private static IdemConfigurationException noReactiveCaller(Method method) {
        String where = "@Idempotent on " + method.getDeclaringClass().getName() + "." + method.getName();
        return new IdemConfigurationException(where, where + " returns " + method.getReturnType().getSimpleName()
                + " and names no scope, in a reactive application: the caller (Spring Security's reactive user) is "
                + "only known to a Mono when it is subscribed, never to the thread that calls this method, so "
                + "every call would be refused, or share idem.aop.default-scope with every other caller.",
                "Return a Mono (its caller is then read from the subscriber's security context), or name the scope: "
                        + "take the caller as a parameter (a WebFlux controller receives it as a java.security."
                        + "Principal argument) and write @Idempotent(scope = \"#caller.name\", ...); a scope "
                        + "must come from trusted state, never from the request body.");
    }

    /**
     * A {@code #name} that is not a parameter would evaluate to null, and the method would fail
     * with a bare SpEL error on its first call; say what is wrong instead.
     */
    private static void checkVariables(String text, String[] parameters, Method method) {
        Matcher m = VARIABLE.matcher(text);
        while (m.find()) {
            String name = m.group(1);
            if (POSITIONAL.matcher(name).matches() || name.equals("root") || name.equals("this")) {
                continue;
            }
            String annotation = "@Idempotent on " + method.getDeclaringClass().getName() + "." + method.getName();
            String where = "The @Idempotent expression '" + text + "' on " + method.getDeclaringClass().getName()
                    + "." + method.getName();
            if (parameters == null) {
                throw new IdemConfigurationException(annotation, where + " names the parameter #" + name
                        + ", but the class was compiled without -parameters, so its parameter names are unknown at "
                        + "run time.", "Refer to parameters by position (#p0 or #a0 is the first), or compile with "
                        + "-parameters (Maven: maven-compiler-plugin <parameters>true</parameters>, which Spring Boot's "
                        + "parent POM sets; Gradle: options.compilerArgs << '-parameters').");
            }
            if (!Arrays.asList(parameters).contains(name)) {
                throw new IdemConfigurationException(annotation, where + " names #" + name + ", which is not a "
                        + "parameter of the method (its parameters: " + String.join(", ", parameters) + ").",
                        "Name one of the method's parameters (#" + String.join(", #", parameters)
                                + "), or a parameter by position (#p0 is the first).");
            }
        }
    }

    private Object evaluate(String text, MethodBasedEvaluationContext context, String what, Method method) {
        Expression e = expressions.computeIfAbsent(text, parser::parseExpression);
        Object value = e.getValue(context);
        if (value == null && !"request".equals(what)) {
            throw new IllegalArgumentException("@Idempotent " + what + " expression '" + text + "' on " + method
                    + " evaluated to null");
        }
        return value;
    }
}
