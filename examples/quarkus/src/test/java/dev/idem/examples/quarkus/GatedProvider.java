package dev.idem.examples.quarkus;

import io.quarkus.test.Mock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The provider in the tests: counts charges, and can hold one until the test lets it go (no sleeping). */
@Mock
public class GatedProvider extends PaymentProvider {
    static final AtomicInteger CHARGES = new AtomicInteger();
    static volatile CountDownLatch entered = new CountDownLatch(0);
    static volatile CountDownLatch gate = new CountDownLatch(0);

    @Override
    public String charge(ChargeRequest request) {
        CHARGES.incrementAndGet();
        entered.countDown();
        try {
            if (!gate.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never opened the gate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return "ch_test_" + CHARGES.get();
    }
}
