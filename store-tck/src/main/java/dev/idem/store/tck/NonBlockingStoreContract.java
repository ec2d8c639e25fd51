package dev.idem.store.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.RecordState;
import dev.idem.api.store.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The store contract run through a store's {@link dev.idem.api.store.NonBlockingStore} form: every
 * test of {@link IdempotencyStoreContract}, with {@code store} the {@link NonBlockingView} of the
 * fixture's store (and {@code otherStore()} its blocking form, so races and histories mix both),
 * plus checks that both forms act on the same records: a record claimed through one is completed,
 * released, extended and read through the other, fenced alike.
 *
 * <p>An adapter whose store offers a non-blocking form extends this class besides
 * {@link IdempotencyStoreContract} and implements {@link #createStoreFixture()}; the fixture's
 * store must offer the form.
 */
public abstract class NonBlockingStoreContract extends IdempotencyStoreContract {
    private NonBlockingView view;

    /**
     * Builds the fixture of the store under test (its own store, not a view); called before each test.
     *
     * @return a fixture whose store offers a non-blocking form
     * @throws Exception if the backend cannot be reached
     */
    protected abstract StoreFixture createStoreFixture() throws Exception;

    @Override
    protected final StoreFixture createFixture() throws Exception {
        StoreFixture viewed = NonBlockingView.fixture(createStoreFixture());
        view = (NonBlockingView) viewed.store();
        return viewed;
    }

    private IdempotencyStore blocking() {
        return view.store();
    }

    /**
     * The form's first promise: with the backend's answers held, a call of each operation returns at
     * once with a stage that completes only after they are let go (see {@link FirstPromise}).
     */
    @Test
    void eachCallReturnsBeforeItsAnswerAndCompletesLater() throws Exception {
        FirstPromise.eachCallReturnsBeforeItsAnswer(kit(), blocking(), view.form());
    }

    @Test
    void aClaimThroughOneFormIsEndedThroughTheOther() {
        byte[] fp = "fp".getBytes(StandardCharsets.UTF_8);
        Duration lease = Duration.ofMinutes(10);
        Duration ttl = Duration.ofHours(1);
        IdempotencyKey completed = key("nb-completed");
        ClaimResult mine = view.claim(completed, fp, 101, lease, ttl);
        assertThat(mine.claimed()).as("claim through the non-blocking form").isTrue();
        assertThat(blocking().find(completed)).as("read through the blocking form").get()
                .extracting(StoredRecord::state, StoredRecord::fencingToken).containsExactly(RecordState.IN_PROGRESS, 101L);
        assertThat(blocking().complete(completed, 102, new byte[] {9}, ttl)).as("a foreign token, blocking form")
                .isFalse();
        assertThat(blocking().complete(completed, 101, new byte[] {7}, ttl)).as("the holder, blocking form").isTrue();
        StoredRecord done = view.find(completed).orElseThrow();
        assertThat(done.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(done.outcome()).containsExactly(7);
        assertThat(view.claim(completed, fp, 103, lease, ttl).record().outcome()).containsExactly(7);

        IdempotencyKey released = key("nb-released");
        assertThat(blocking().claim(released, fp, 201, lease, ttl).claimed()).isTrue();
        assertThat(view.extendLease(released, 202, lease)).as("a foreign token, non-blocking form").isEmpty();
        assertThat(view.extendLease(released, 201, lease.multipliedBy(2))).as("the holder, non-blocking form")
                .isPresent();
        assertThat(view.checkpoint(released, 201, new byte[] {5})).isTrue();
        assertThat(blocking().find(released).orElseThrow().journal()).containsExactly(5);
        assertThat(view.release(released, 202)).as("a foreign release, non-blocking form").isFalse();
        assertThat(view.release(released, 201)).as("the holder's release, non-blocking form").isTrue();
        assertThat(blocking().find(released).orElseThrow().state()).isEqualTo(RecordState.RELEASED);
        ClaimResult again = blocking().claim(released, fp, 203, lease, ttl);
        assertThat(again.claimed()).as("the next claim after a release through the other form").isTrue();
        assertThat(again.record().attempt()).isEqualTo(2);
    }
}
