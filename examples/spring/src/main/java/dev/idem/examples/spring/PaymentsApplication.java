package dev.idem.examples.spring;

import java.util.Set;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * Starts the service (port 8080 unless {@code --server.port=...}). Everything idem needs is
 * auto-configured from the H2 DataSource and {@code application.properties}; the application
 * only checks its callers' API keys.
 */
@SpringBootApplication
public class PaymentsApplication {
    /** Created by Spring. */
    public PaymentsApplication() {
    }

    /**
     * Checks API keys on {@code /charges} before the Idempotency-Key filter (order -90) runs.
     *
     * @param keys the known API keys ({@code payments.api-keys})
     * @return the registration
     */
    @Bean
    FilterRegistrationBean<ApiKeyFilter> apiKeys(@Value("${payments.api-keys}") Set<String> keys) {
        FilterRegistrationBean<ApiKeyFilter> registration = new FilterRegistrationBean<>(new ApiKeyFilter(keys));
        registration.addUrlPatterns("/charges");
        registration.setOrder(-100);
        return registration;
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
