package dev.idem.messaging.kafka;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ShareConsumer;

/**
 * A {@link ShareConsumer} whose process dies on script, as a killed one does: its acknowledgements
 * are held back until {@code commitSync} (a killed process never sends the ones it had only
 * recorded), and it dies ({@link KafkaEndToEndTest.Crash}) when the script says so at a point:
 * before recording an acknowledgement (the inbox had completed the record), before the commit
 * (acknowledgements recorded, not sent), or after the commit returned (acknowledgements landed).
 * The test then closes the real consumer, which releases what it still holds, as the broker does
 * for a member that died.
 */
final class FaultyShareConsumer {
    /** Where the process may die. */
    enum Point { BEFORE_ACKNOWLEDGE, BEFORE_COMMIT, AFTER_COMMIT }

    /** Whether the process dies at the {@code n}th time it reaches {@code point}. */
    interface Script {
        boolean dies(Point point, int n);
    }

    private FaultyShareConsumer() {
    }

    @SuppressWarnings("unchecked")
    static ShareConsumer<byte[], byte[]> wrap(ShareConsumer<byte[], byte[]> target, Script script) {
        Map<Point, Integer> reached = new EnumMap<>(Point.class);
        List<Object[]> held = new ArrayList<>();
        return (ShareConsumer<byte[], byte[]>) Proxy.newProxyInstance(FaultyShareConsumer.class.getClassLoader(),
                new Class<?>[] {ShareConsumer.class}, (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("acknowledge") && args.length == 2) {
                        at(script, reached, Point.BEFORE_ACKNOWLEDGE);
                        held.add(args);
                        return null;
                    }
                    if (name.equals("commitSync")) {
                        at(script, reached, Point.BEFORE_COMMIT);
                        for (Object[] ack : held) {
                            target.acknowledge((ConsumerRecord<byte[], byte[]>) ack[0], (AcknowledgeType) ack[1]);
                        }
                        held.clear();
                        Object result = invoke(target, method, args);
                        at(script, reached, Point.AFTER_COMMIT);
                        return result;
                    }
                    return invoke(target, method, args);
                });
    }

    private static void at(Script script, Map<Point, Integer> reached, Point point) {
        if (script.dies(point, reached.merge(point, 1, Integer::sum))) {
            throw new KafkaEndToEndTest.Crash();
        }
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
