package dev.idem.messaging.kafka;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * A {@link Consumer} whose calls fail on script: for the 1st, 2nd, ... call of {@code poll} and
 * of {@code commitSync}, the script says what to throw before the call reaches the broker
 * ({@link Fault#before}) or after it returned ({@link Fault#after}); null lets the call through.
 * An {@link Error} stands for the consumer's process dying there.
 */
final class FaultyConsumer {
    private FaultyConsumer() {
    }

    /** What a commit does. */
    record Fault(Throwable before, Throwable after) {
        static Fault before(Throwable t) {
            return new Fault(t, null);
        }

        static Fault after(Throwable t) {
            return new Fault(null, t);
        }
    }

    /** Says what the {@code n}th call of {@code method} ({@code poll} or {@code commitSync}) does. */
    interface Script {
        Fault at(String method, int n);
    }

    /** Fails only commits: {@code commits} is asked for the 1st, 2nd, ... commit. */
    static Consumer<byte[], byte[]> wrap(Consumer<byte[], byte[]> target, IntFunction<Fault> commits) {
        return wrap(target, (method, n) -> method.equals("commitSync") ? commits.apply(n) : null);
    }

    @SuppressWarnings("unchecked")
    static Consumer<byte[], byte[]> wrap(Consumer<byte[], byte[]> target, Script script) {
        Map<String, Integer> calls = new HashMap<>();
        return (Consumer<byte[], byte[]>) Proxy.newProxyInstance(FaultyConsumer.class.getClassLoader(),
                new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                    String name = method.getName();
                    if (!name.equals("commitSync") && !name.equals("poll")) {
                        return invoke(target, method, args);
                    }
                    Fault fault = script.at(name, calls.merge(name, 1, Integer::sum));
                    if (fault != null && fault.before() != null) {
                        throw fault.before();
                    }
                    Object result = invoke(target, method, args);
                    if (fault != null && fault.after() != null) {
                        throw fault.after();
                    }
                    return result;
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
