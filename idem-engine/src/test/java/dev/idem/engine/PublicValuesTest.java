package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idem.api.IdempotencyKey;
import dev.idem.engine.IdempotencyEvent.Type;
import dev.idem.engine.protection.OutcomeFilter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The small public values other modules build on, held to their documented contracts: the one
 * outcome name metrics and traces give each event type, an event's required parts,
 * {@link Reconciliation} as a value (equal answers are equal and hash alike; its text says which
 * answer it is), and {@link OutcomeFilter#removing} leaving alone a pointer past the end of an
 * array instead of failing the write of an outcome.
 */
class PublicValuesTest {
    @Test
    void everyEventTypeHasItsDocumentedOutcomeName() {
        assertThat(Type.FIRST_EXECUTION.outcome()).isEqualTo("executed");
        assertThat(Type.REPLAY.outcome()).isEqualTo("replayed");
        assertThat(Type.IN_PROGRESS_CONFLICT.outcome()).isEqualTo("in_progress_conflict");
        assertThat(Type.KEY_REUSED.outcome()).isEqualTo("key_reused");
        assertThat(Type.LEASE_TAKEN_OVER.outcome()).isEqualTo("lease_taken_over");
        assertThat(Type.LEASE_LOST.outcome()).isEqualTo("lease_lost");
        assertThat(Type.RELEASED_ON_TRANSIENT_FAILURE.outcome()).isEqualTo("released_on_transient_failure");
        assertThat(Type.FINAL_FAILURE_STORED.outcome()).isEqualTo("final_failure_stored");
        assertThat(Type.OUTCOME_NOT_STORED.outcome()).isEqualTo("outcome_not_stored");
        assertThat(Type.DEADLINE_EXCEEDED.outcome()).isEqualTo("deadline_exceeded");
    }

    @Test
    void anEventNeedsItsTypeDurationAndKey() {
        assertThatThrownBy(() -> new IdempotencyEvent(null, "s", "op", 1, Duration.ZERO, "k", null))
                .isInstanceOf(NullPointerException.class).hasMessage("type");
        assertThatThrownBy(() -> new IdempotencyEvent(Type.REPLAY, "s", "op", 1, null, "k", null))
                .isInstanceOf(NullPointerException.class).hasMessage("duration");
        assertThatThrownBy(() -> new IdempotencyEvent(Type.REPLAY, "s", "op", 1, Duration.ZERO, null, null))
                .isInstanceOf(NullPointerException.class).hasMessage("key");
    }

    @Test
    void reconciliationsAreValues() {
        assertThat(Reconciliation.happened("r-1")).isEqualTo(Reconciliation.happened("r-1"))
                .hasSameHashCodeAs(Reconciliation.happened("r-1"))
                .isNotEqualTo(Reconciliation.happened("r-2"))
                .hasToString("Reconciliation[happened: r-1]");
        assertThat(Reconciliation.unknown("ledger down")).isEqualTo(Reconciliation.unknown("ledger down"))
                .hasSameHashCodeAs(Reconciliation.unknown("ledger down"))
                .isNotEqualTo(Reconciliation.unknown("timeout"))
                .hasToString("Reconciliation[unknown: ledger down]");
        assertThat(Reconciliation.didNotHappen()).isEqualTo(Reconciliation.didNotHappen())
                .isNotEqualTo(Reconciliation.unknown("x")).isNotEqualTo(Reconciliation.happened(null))
                .hasToString("Reconciliation[did not happen]");
        // Different answers hash apart (so a set of reconciliations keeps each).
        assertThat(Reconciliation.happened("r-1").hashCode()).isNotEqualTo(Reconciliation.happened("r-2").hashCode());
        assertThat(Reconciliation.unknown("a").hashCode()).isNotEqualTo(Reconciliation.unknown("b").hashCode());
    }

    @Test
    void removingLeavesAPointerPastAnArraysEndAlone() throws Exception {
        OutcomeFilter filter = OutcomeFilter.removing("/cards/2", "/cards/1", "/card");
        JsonNode result = new ObjectMapper().readTree("{\"card\":\"4242\",\"cards\":[\"a\",\"b\"],\"id\":7}");
        JsonNode kept = filter.keep(IdempotencyKey.of("s", "op", "k"), result);
        assertThat(kept.toString()).isEqualTo("{\"cards\":[\"a\",null],\"id\":7}");
        assertThat(filter).hasToString("OutcomeFilter.removing[/cards/2, /cards/1, /card]");
    }
}
