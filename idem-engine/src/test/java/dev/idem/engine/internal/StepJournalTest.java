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
        newer[3] = 3;
        assertThatThrownBy(() -> StepJournal.decode(newer)).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("version 3");
        byte[] markerless = good.clone();
        markerless[3] = 2;
        assertThatThrownBy(() -> StepJournal.decode(markerless)).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("no start marker");
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

    @Test
    void aStartMarkerIsLastInVersionTwoAndItsResultReplacesIt() {
        StepJournal started = StepJournal.empty().append("a", utf8("S1")).start("wire", 3);
        byte[] expected = {'I', 'D', 'J', 2, 0, 1, 'a', 0, 0, 0, 2, 'S', '1', 0, 4, 'w', 'i', 'r', 'e',
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0, 0, 0, 3};
        assertThat(started.bytes()).isEqualTo(expected);
        StepJournal read = StepJournal.decode(started.bytes());
        assertThat(read.size()).isEqualTo(2);
        assertThat(read.marker()).isNotNull();
        assertThat(read.marker().name()).isEqualTo("wire");
        assertThat(read.marker().startedBy()).isEqualTo(3);
        assertThat(read.marker().started()).isTrue();
        assertThat(read.entries().get(0).started()).isFalse();

        StepJournal restarted = read.start("wire", 4);
        assertThat(StepJournal.decode(restarted.bytes()).marker().startedBy()).isEqualTo(4);
        assertThat(restarted.size()).isEqualTo(2);

        StepJournal finished = restarted.finish("wire", utf8("S2"));
        assertThat(finished.bytes()).isEqualTo(StepJournal.empty().append("a", utf8("S1")).append("wire", utf8("S2"))
                .bytes());
        assertThat(finished.bytes()[3]).isEqualTo((byte) 1);
        assertThat(finished.marker()).isNull();
        assertThat(read.sizeWith("wire", utf8("S2"))).isEqualTo(finished.bytes().length);
        assertThat(StepJournal.holdsSteps(StepJournal.empty().start("a", 1).bytes())).isTrue();
    }

    @Test
    void aMarkerOfAnotherStepOrBeforeTheEndIsRefused() {
        StepJournal started = StepJournal.empty().start("wire", 1);
        assertThatThrownBy(() -> started.append("other", utf8("S1"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> started.start("other", 2)).isInstanceOf(IllegalStateException.class);
        byte[] trailing = java.util.Arrays.copyOf(started.bytes(), started.bytes().length + 1);
        assertThatThrownBy(() -> StepJournal.decode(trailing)).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("before its end");
        byte[] inVersionOne = started.bytes().clone();
        inVersionOne[3] = 1;
        assertThatThrownBy(() -> StepJournal.decode(inVersionOne)).isInstanceOf(IdempotencyException.class);
    }
}
