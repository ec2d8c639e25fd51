package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.IdempotencyException;
import org.junit.jupiter.api.Test;

/**
 * The step journal at the edges of what a store may hand back: a journal with no step (just its
 * header) reads as empty, anything shorter is not a journal, and a step whose result is empty
 * (a void step) reads back as that step, not as a truncated journal, in both format versions.
 */
class StepJournalEdgesTest {
    @Test
    void aHeaderAloneIsAnEmptyJournalAndLessIsNone() {
        byte[] header = StepJournal.empty().bytes();
        assertThat(StepJournal.decode(header).size()).isZero();
        assertThat(StepJournal.decode(header).marker()).isNull();
        assertThat(StepJournal.holdsSteps(header)).isFalse();
        byte[] shorter = java.util.Arrays.copyOf(header, header.length - 1);
        assertThatThrownBy(() -> StepJournal.decode(shorter)).isInstanceOf(IdempotencyException.class)
                .hasMessageContaining("not in idem's format");
        assertThatThrownBy(() -> StepJournal.decode(new byte[0])).isInstanceOf(IdempotencyException.class);
    }

    @Test
    void aStepWithAnEmptyResultReadsBackAsThatStep() {
        StepJournal journal = StepJournal.empty().append("notify", new byte[0]).append("charge", new byte[] {'1'});
        StepJournal read = StepJournal.decode(journal.bytes());
        assertThat(read.entries()).extracting(StepJournal.Entry::name).containsExactly("notify", "charge");
        assertThat(read.entries().get(0).result()).isEmpty();
        assertThat(read.entries().get(0).started()).isFalse();

        // The same after a start marker (version 2): the empty result still reads as a result.
        StepJournal marked = StepJournal.empty().append("notify", new byte[0]).start("charge", 3);
        StepJournal readMarked = StepJournal.decode(marked.bytes());
        assertThat(readMarked.entries().get(0).result()).isEmpty();
        assertThat(readMarked.marker().name()).isEqualTo("charge");
        assertThat(readMarked.marker().startedBy()).isEqualTo(3);
        assertThat(StepJournal.decode(readMarked.finish("charge", new byte[0]).bytes()).entries())
                .extracting(StepJournal.Entry::name).containsExactly("notify", "charge");
    }
}
