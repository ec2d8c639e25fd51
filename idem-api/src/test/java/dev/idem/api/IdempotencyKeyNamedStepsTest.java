package dev.idem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IdempotencyKeyNamedStepsTest {

    @Test
    void namedStepsBuildTheSameKeyAsOf() {
        IdempotencyKey named = IdempotencyKey.inScope("cus_1").operation("create-charge").key("k-1");

        assertThat(named).isEqualTo(IdempotencyKey.of("cus_1", "create-charge", "k-1"));
        assertThat(named.scope()).isEqualTo("cus_1");
        assertThat(named.operation()).isEqualTo("create-charge");
        assertThat(named.key()).isEqualTo("k-1");
    }

    @Test
    void aScopedOperationIsReusableForManyTokens() {
        IdempotencyKey.ScopedOperation charges = IdempotencyKey.inScope("cus_1").operation("create-charge");

        assertThat(charges.key("a")).isEqualTo(IdempotencyKey.of("cus_1", "create-charge", "a"));
        assertThat(charges.key("b")).isEqualTo(IdempotencyKey.of("cus_1", "create-charge", "b"));
        assertThat(charges).hasToString("IdempotencyKey.ScopedOperation[cus_1, create-charge]");
    }

    @Test
    void eachStepChecksItsOwnPartAtOnce() {
        assertThatThrownBy(() -> IdempotencyKey.inScope(""))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessage("scope must not be empty");
        assertThatThrownBy(() -> IdempotencyKey.inScope(null))
                .isInstanceOf(InvalidIdempotencyKeyException.class).hasMessage("scope must not be null");
        IdempotencyKey.Scoped scoped = IdempotencyKey.inScope("cus_1");
        assertThatThrownBy(() -> scoped.operation("a\nb"))
                .isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessage("operation has a control character at index 1");
        IdempotencyKey.ScopedOperation op = scoped.operation("create-charge");
        assertThatThrownBy(() -> op.key("has space"))
                .isInstanceOf(InvalidIdempotencyKeyException.class)
                .hasMessageStartingWith("key has a character outside visible ASCII");
    }
}
