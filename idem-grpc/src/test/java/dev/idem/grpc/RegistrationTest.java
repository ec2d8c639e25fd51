package dev.idem.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.store.memory.MemoryIdempotencyStore;
import io.grpc.ServerServiceDefinition;
import org.junit.jupiter.api.Test;

/** What is refused when the contract is installed, before any call. */
class RegistrationTest {
    private final IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create())
            .build();
    private final GrpcIdempotency idem = GrpcIdempotency.builder(engine).callers(CallerResolver.fixed("c")).build();

    @Test
    void aServiceWithAStreamingMethodIsRefusedNamingIt() {
        assertThatThrownBy(() -> idem.intercept(new TestPayments()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("idem.test.Payments/Watch (SERVER_STREAMING)")
                .hasMessageContaining("intercept(service, \"Method\", ...)");
        assertThatThrownBy(() -> idem.intercept(new TestPayments(), "Charge", "Watch"))
                .hasMessageContaining("Watch");
    }

    @Test
    void theNamedUnaryMethodsAreCoveredAndTheOthersLeftAsTheyAre() {
        TestPayments service = new TestPayments();
        ServerServiceDefinition plain = service.bindService();
        ServerServiceDefinition wrapped = idem.intercept(service, "Charge");

        assertThat(wrapped.getMethod("idem.test.Payments/Charge").getServerCallHandler())
                .isNotSameAs(plain.getMethod("idem.test.Payments/Charge").getServerCallHandler());
        assertThat(wrapped.getMethods()).hasSize(2);
        assertThatThrownBy(() -> idem.intercept(service, "Refund")).hasMessageContaining("has no method Refund");
        assertThatThrownBy(() -> idem.intercept(service, new String[0])).hasMessageContaining("at least one");
    }

    @Test
    void anAllUnaryServiceIsCoveredWhole() {
        assertThat(idem.intercept(new TestPayments.Ledger()).getMethods()).hasSize(1);
    }

    @Test
    void theBuilderWantsCallersAndRefusesSettingsTwice() {
        assertThatThrownBy(() -> GrpcIdempotency.builder(engine).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("callers must be set");
        assertThatThrownBy(() -> GrpcIdempotency.builder(engine).callers(CallerResolver.fixed("a"))
                .callers(CallerResolver.fixed("b"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> GrpcIdempotency.builder(engine).excludeFromFingerprint("no-slash"))
                .isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> CallerResolver.trustedHeader("x-user-bin")).isInstanceOf(
                IllegalArgumentException.class);
    }
}
