package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.IdempotencyKey;
import dev.idem.engine.OutcomeUnreadableException;
import dev.idem.http.HttpIdempotency;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** An unreadable stored outcome from an {@code @Idempotent} method: 500 with its own problem type, no key id. */
class IdempotencyExceptionHandlerTest {
    @Test
    void anUnreadableOutcomeIs500OutcomeUnreadableWithoutItsKeyId() {
        OutcomeUnreadableException e = new OutcomeUnreadableException(IdempotencyKey.of("s", "op", "k"),
                OutcomeUnreadableException.Reason.KEY_MISSING, "2026-01", "encrypted under key id '2026-01'", null);
        ResponseEntity<ProblemDetail> answer = new IdempotencyExceptionHandler(Duration.ofSeconds(1)).handle(e);
        assertThat(answer.getStatusCode().value()).isEqualTo(500);
        assertThat(answer.getBody().getType())
                .isEqualTo(URI.create(HttpIdempotency.PROBLEM_TYPE_PREFIX + "outcome-unreadable"));
        assertThat(answer.getBody().getDetail()).doesNotContain("2026-01");
    }
}
