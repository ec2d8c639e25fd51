package dev.idem.messaging.kafka;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A {@link Consumer} that injects what the new group protocol's client may do in the background: the
 * first offset commit that covers two partitions or more times out (so the handler must seek every
 * one of them back), and the first partition the handler then seeks is revoked just before the
 * seek reaches the client, which then throws as the real client does for a partition it no longer has.
 */
final class RevokingConsumer {
    private final Consumer<byte[], byte[]> target;
    private final Consumer<byte[], byte[]> proxy;
    private final List<TopicPartition> sought = new CopyOnWriteArrayList<>();
    private volatile boolean commitFailed;
    private volatile TopicPartition revoked;

    @SuppressWarnings("unchecked")
    RevokingConsumer(Consumer<byte[], byte[]> target) {
        this.target = target;
        this.proxy = (Consumer<byte[], byte[]>) Proxy.newProxyInstance(RevokingConsumer.class.getClassLoader(),
                new Class<?>[] {Consumer.class}, (p, method, args) -> intercept(method, args));
    }

    private Object intercept(Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (name.equals("commitSync") && args != null && args[0] instanceof Map<?, ?> offsets && offsets.size() >= 2
                && !commitFailed) {
            commitFailed = true;
            throw new TimeoutException("commit timed out");
        }
        if (name.equals("seek") && args[0] instanceof TopicPartition partition) {
            if (commitFailed && revoked == null) {
                revoked = partition;
                Set<TopicPartition> rest = new HashSet<>(target.assignment());
                rest.remove(partition);
                target.assign(rest);
            } else {
                sought.add(partition);
            }
        }
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    Consumer<byte[], byte[]> proxy() {
        return proxy;
    }

    void assign(List<TopicPartition> partitions) {
        target.assign(partitions);
    }

    /** The partition revoked before its seek, or null if no seek followed the failed commit yet. */
    TopicPartition revoked() {
        return revoked;
    }

    /** Partitions sought (and not revoked) since. */
    List<TopicPartition> sought() {
        return sought;
    }
}
