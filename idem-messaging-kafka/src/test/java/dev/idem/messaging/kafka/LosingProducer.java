package dev.idem.messaging.kafka;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A {@link Producer} whose chosen sends (the 1st, 2nd, ... as {@code lose} says) reach the broker
 * and are acknowledged there, but whose answer is lost: the caller sees a {@link TimeoutException}.
 */
final class LosingProducer {
    private LosingProducer() {
    }

    @SuppressWarnings("unchecked")
    static Producer<byte[], byte[]> wrap(Producer<byte[], byte[]> target, IntPredicate lose) {
        AtomicInteger sends = new AtomicInteger();
        return (Producer<byte[], byte[]>) Proxy.newProxyInstance(LosingProducer.class.getClassLoader(),
                new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("send") && lose.test(sends.incrementAndGet())) {
                        ((Future<?>) result).get(30, TimeUnit.SECONDS);   // it landed
                        return CompletableFuture.failedFuture(new TimeoutException("the answer was lost"));
                    }
                    return result;
                });
    }
}
