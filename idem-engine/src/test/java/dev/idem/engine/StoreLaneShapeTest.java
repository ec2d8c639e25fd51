package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The shapes a lane accepts: at least one slot, and fewer kept for held keys than it has (none kept
 * is allowed), so claims always have a slot of their own and the check names the bad value.
 */
class StoreLaneShapeTest {

    @Test
    void aLaneIsAtLeastOneWideAndKeepsFewerSlotsForHeldKeysThanItsWidth() {
        assertThat(new StoreLane(1).running()).as("one wide, none kept").isZero();
        assertThat(new StoreLane(2, 1).running()).isZero();
        assertThat(new StoreLane(4, 0).running()).isZero();
        assertThatThrownBy(() -> new StoreLane(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StoreLane(2, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fewer slots kept (2)");
        assertThatThrownBy(() -> new StoreLane(2, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
