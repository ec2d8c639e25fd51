package dev.idem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.api.time.Deadline;
import dev.idem.api.time.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeadlineTest {
    // Near the end of the long range, so arithmetic that is not overflow-safe shows.
    private final AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - Duration.ofDays(1).toNanos());
    private final Ticker ticker = nanos::get;

    @Test
    void countsDownOnItsTickerAndStopsAtZero() {
        Deadline d = Deadline.after(Duration.ofSeconds(2), ticker);
        assertThat(d.remaining()).isEqualTo(Duration.ofSeconds(2));
        assertThat(d.isExpired()).isFalse();

        nanos.addAndGet(Duration.ofMillis(1500).toNanos());
        assertThat(d.remaining()).isEqualTo(Duration.ofMillis(500));

        nanos.addAndGet(Duration.ofDays(2).toNanos());
        assertThat(d.remaining()).isZero();
        assertThat(d.isExpired()).isTrue();
    }

    @Test
    void zeroAndNegativeBudgetsHaveAlreadyPassedAndHugeOnesAreCapped() {
        assertThat(Deadline.after(Duration.ZERO, ticker).isExpired()).isTrue();
        assertThat(Deadline.after(Duration.ofMillis(-5), ticker).remaining()).isZero();
        assertThat(Deadline.after(Duration.ofSeconds(Long.MAX_VALUE), ticker).remaining())
                .isEqualTo(Deadline.MAX_BUDGET);
    }

    @Test
    void earlierPicksTheOneWithLessTimeLeft() {
        Deadline a = Deadline.after(Duration.ofSeconds(1), ticker);
        Deadline b = Deadline.after(Duration.ofSeconds(5), ticker);
        assertThat(a.earlier(b)).isSameAs(a);
        assertThat(b.earlier(a)).isSameAs(a);
    }

    @Test
    @SuppressWarnings("try")
    void bindingIsPerThreadAndClosingRestoresThePrevious() throws Exception {
        Deadline outer = Deadline.after(Duration.ofSeconds(9), ticker);
        Deadline inner = Deadline.after(Duration.ofSeconds(1), ticker);
        assertThat(Deadline.current()).isEmpty();
        try (Deadline.Scope a = outer.bind()) {
            try (Deadline.Scope b = inner.bind()) {
                assertThat(Deadline.current()).containsSame(inner);
                assertThat(CompletableFuture.supplyAsync(Deadline::current).get()).isEmpty();
            }
            assertThat(Deadline.current()).containsSame(outer);
        }
        assertThat(Deadline.current()).isEmpty();
    }

    @Test
    void aScopeClosedOnAnotherThreadIsRefused() throws Exception {
        Deadline.Scope scope = Deadline.after(Duration.ofSeconds(1), ticker).bind();
        try {
            Throwable failure = CompletableFuture.runAsync(scope::close).handle((v, e) -> e).get();
            assertThat(failure).hasCauseInstanceOf(IllegalStateException.class);
        } finally {
            scope.close();
        }
        assertThat(Deadline.current()).isEmpty();
        assertThatThrownBy(() -> Deadline.after(null, ticker)).isInstanceOf(NullPointerException.class);
    }
}
