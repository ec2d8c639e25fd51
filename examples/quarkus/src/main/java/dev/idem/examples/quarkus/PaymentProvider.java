package dev.idem.examples.quarkus;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Stands in for the card network: slow ({@code payments.provider-latency}), and charging it twice
 * charges the customer twice. That is what the Idempotency-Key in front of it prevents.
 */
@ApplicationScoped
public class PaymentProvider {
    @ConfigProperty(name = "payments.provider-latency")
    Duration latency;

    /**
     * Charges the card.
     *
     * @param request what to charge
     * @return the provider's charge id
     */
    public String charge(ChargeRequest request) {
        try {
            Thread.sleep(latency.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while charging", e);
        }
        return "ch_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }
}
