package dev.idem.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.CallOptions;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.Result;
import dev.idem.engine.Work;
import dev.idem.engine.WorkFailedException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * Runs {@link Idempotent} methods through the engine (see the annotation for the contract).
 * Thread-safe; parsed expressions are cached per expression text.
 */
@Aspect
public class IdempotentAspect {
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder", IdempotentAspect.class.getClassLoader());

    private final IdempotencyEngine engine;
    private final ObjectProvider<TransactionalExecutor> transactional;
    private final String defaultScope;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer names = new DefaultParameterNameDiscoverer();
    private final Map<String, Expression> expressions = new ConcurrentHashMap<>();

    IdempotentAspect(IdempotencyEngine engine, ObjectProvider<TransactionalExecutor> transactional,
            String defaultScope) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.transactional = transactional;
        this.defaultScope = defaultScope;
    }

    /**
     * Runs the annotated method at most once per key.
     *
     * @param call the intercepted call
     * @param idempotent the method's annotation
     * @return the method's result, fresh or replayed
     * @throws Throwable what the method threw, or an {@link dev.idem.api.IdempotencyException}
     */
    @Around("@annotation(idempotent)")
    public Object around(ProceedingJoinPoint call, Idempotent idempotent) throws Throwable {
        Method method = ((MethodSignature) call.getSignature()).getMethod();
        Object[] args = call.getArgs();
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(call.getTarget(), method, args, names);
        String key = String.valueOf(evaluate(idempotent.key(), context, "key", method));
        String scope = idempotent.scope().isEmpty() ? defaultScope()
                : String.valueOf(evaluate(idempotent.scope(), context, "scope", method));
        Object request = !idempotent.request().isEmpty() ? evaluate(idempotent.request(), context, "request", method)
                : args.length == 1 ? args[0] : Arrays.asList(args);
        if (request instanceof String) {
            // The engine reads a String as JSON text; an argument is a value, so fingerprint it as one.
            request = TextNode.valueOf((String) request);
        }
        IdempotencyKey idempotencyKey = IdempotencyKey.of(scope, idempotent.operation(), key);
        Type returnType = method.getGenericReturnType();
        TypeReference<Object> type = new TypeReference<>() {
            @Override
            public Type getType() {
                return returnType == void.class ? Object.class : returnType;
            }
        };
        Work<Object> work = ctx -> {
            try {
                return call.proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new UndeclaredThrowableException(t);
            }
        };
        try {
            Result<Object> result;
            if (idempotent.transactional()) {
                TransactionalExecutor executor = transactional.getIfAvailable();
                if (executor == null) {
                    throw new IllegalStateException("@Idempotent(transactional = true) on " + method
                            + " needs idem-store-jdbc and spring-jdbc on the class path");
                }
                result = executor.execute(idempotencyKey, request, type, CallOptions.defaults(), work);
            } else {
                result = engine.execute(idempotencyKey, request, type, CallOptions.defaults(), work);
            }
            return result.value();
        } catch (WorkFailedException e) {
            // The engine wraps checked exceptions; the caller sees what the method threw.
            throw e.getCause();
        }
    }

    private String defaultScope() {
        if (SECURITY) {
            Optional<String> user = SecurityContextPrincipal.current();
            if (user.isPresent()) {
                return user.get();
            }
        }
        return defaultScope;
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
