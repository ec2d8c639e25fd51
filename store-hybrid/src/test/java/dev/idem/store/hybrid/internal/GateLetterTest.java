package dev.idem.store.hybrid.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.store.RecordState;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The scripts' letters, decoded once into names: one letter per name within each kind of reply. */
class GateLetterTest {
    @Test
    void eachKindOfReplyGivesEachLetterOneName() {
        for (Class<? extends GateLetter> type : List.of(GateState.class, ClaimAction.class, ObservedAction.class,
                GateWrite.class)) {
            GateLetter[] words = type.getEnumConstants();
            assertThat(Arrays.stream(words).map(GateLetter::letter).distinct()).as(type.getSimpleName())
                    .hasSameSizeAs(words);
        }
    }

    @Test
    void theLetterRIsAClaimActionOrAStateByWhereItArrives() {
        assertThat(GateLetter.decode(ClaimAction.class, 'R')).isEqualTo(ClaimAction.READ_OUTCOME);
        assertThat(GateLetter.decode(GateState.class, 'R')).isEqualTo(GateState.RELEASED);
        assertThat(GateLetter.decode(GateWrite.class, 'U')).isEqualTo(GateWrite.NOW_UNKNOWN);
        assertThat(GateLetter.decode(ObservedAction.class, 'V')).isEqualTo(ObservedAction.CORRECTED_READ_AGAIN);
    }

    @Test
    void aLetterOutsideTheProtocolIsRefused() {
        assertThatThrownBy(() -> GateLetter.decode(ClaimAction.class, 'Q'))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ClaimAction").hasMessageContaining("'Q'");
    }

    @Test
    void gateStatesAreTheDatabaseStatesAndUnknown() {
        for (RecordState s : RecordState.values()) {
            assertThat(GateState.of(s).recordState()).isEqualTo(s);
            assertThat(GateState.of(s).letter()).as("the letter the scripts store").isEqualTo(s.code());
        }
        assertThatThrownBy(GateState.UNKNOWN::recordState).isInstanceOf(IllegalArgumentException.class);
    }
}
