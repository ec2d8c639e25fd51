package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class StepJournalTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void appendedStepsReadBackInOrder() {
        StepJournal j = StepJournal.empty().append("reserve", utf8("S\"r1\"")).append("chargé", utf8("Snull"));
        StepJournal read = StepJournal.decode(j.bytes());
        assertThat(read.entries()).extracting(StepJournal.Entry::name).containsExactly("reserve", "chargé");
        assertThat(read.entries().get(0).result()).isEqualTo(utf8("S\"r1\""));
        assertThat(j.bytes()).hasSize((int) StepJournal.empty().append("reserve", utf8("S\"r1\""))
                .sizeWith("chargé", utf8("Snull")));
        assertThat(StepJournal.decode(null).size()).isZero();
    }

    @Test
    void theFormatIsPinned() {
        byte[] expected = {'I', 'D', 'J', 1, 0, 1, 'a', 0, 0, 0, 2, 'S', '1'};
        assertThat(StepJournal.empty().append("a", utf8("S1")).bytes()).isEqualTo(expected);
    }

    @Test
    void foreignVersionsAndTruncatedJournalsAreRefused() {
        byte[] good = StepJournal.empty().append("a", utf8("S1")).bytes();
        byte[] newer = good.clone();
        newer[3] = 2;
        assertThatThrownBy(() -> StepJournal.decode(newer)).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("version 2");
        assertThatThrownBy(() -> StepJournal.decode(Arrays.copyOf(good, good.length - 1)))
                .isInstanceOf(IdempotencyException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> StepJournal.decode(utf8("{}"))).isInstanceOf(IdempotencyException.class);
    }

    @Test
    void onlyAJournalWithAStepHoldsSteps() {
        assertThat(StepJournal.holdsSteps(null)).isFalse();
        assertThat(StepJournal.holdsSteps(StepJournal.empty().bytes())).isFalse();
        assertThat(StepJournal.holdsSteps(StepJournal.empty().append("a", utf8("S1")).bytes())).isTrue();
    }

    @Test
    void namesAreCheckedForLength() {
        assertThatThrownBy(() -> StepJournal.checkName("x".repeat(201))).isInstanceOf(IllegalArgumentException.class);
        assertThat(StepJournal.checkName("x".repeat(200))).hasSize(200);
    }
}
