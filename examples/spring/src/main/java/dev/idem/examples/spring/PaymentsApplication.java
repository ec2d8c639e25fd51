package dev.idem.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Starts the service (port 8080 unless {@code --server.port=...}). Everything idem needs is
 * auto-configured from the H2 DataSource and {@code application.properties}.
 */
@SpringBootApplication
public class PaymentsApplication {
    /** Created by Spring. */
    public PaymentsApplication() {
    }

    /**
     * Runs the application.
     *
     * @param args Spring Boot arguments, e.g. {@code --server.port=9090}
     */
    public static void main(String[] args) {
        SpringApplication.run(PaymentsApplication.class, args);
    }
}
