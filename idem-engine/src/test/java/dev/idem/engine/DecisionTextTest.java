package dev.idem.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.IdempotencyEvent.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The text of the engine's decisions (what a debugger, a failed assertion or a log shows of a
 * verdict or of how a key ends) names the decision and its attempt, and never the caller's result
 * or the stored bytes, which may hold personal data.
 */
class DecisionTextTest {
    private static final IdempotencyKey KEY = IdempotencyKey.of("alice@example.com", "refund", "k-1");
    private static final String SECRET = "4242424242424242";
    private static final byte[] OUTCOME = ("S\"" + SECRET + "\"").getBytes(StandardCharsets.UTF_8);

    @Test
    void eachEndingNamesItselfAndItsAttemptOnly() {
        FinalFailureException declined = new FinalFailureException(KEY, "card_declined", SECRET, null);
        OutcomeNotStoredException notStored = new OutcomeNotStoredException(KEY, SECRET, false, null);
        List<Object> endings = List.of(
                new Ending.Complete<>(null, 7, 2, OUTCOME, OUTCOME, SECRET),
                new Ending.StoreFailure<>(null, 7, 2, OUTCOME, OUTCOME, declined, null, null),
                new Ending.StoreMarker<>(null, 7, 2, OUTCOME, OUTCOME, notStored, SECRET, null),
                new Ending.GiveBack<>(KEY, true, 7, 2, new IllegalStateException(SECRET), null, null, false),
                new Ending.GiveBack<>(KEY, false, 7, 2, new IllegalStateException(SECRET), null, null, false),
                new Ending.Confirm<>(null, 7, 2, OUTCOME, SECRET, 0, null),
                new Ending.Answer<>(new Result<>(SECRET, false, true, 2), null, false, Type.FIRST_EXECUTION, 2,
                        OUTCOME, OUTCOME, 0, null),
                Ending.Answer.thrown(new IllegalStateException(SECRET)));
        assertThat(endings).extracting(Object::toString).containsExactly(
                "Complete[attempt 2]", "StoreFailure[card_declined, attempt 2]", "StoreMarker[attempt 2]",
                "HandBack[attempt 2]", "Release[attempt 2]", "Confirm[attempt 2]",
                "Answer[result, FIRST_EXECUTION]", "Answer[IllegalStateException]");
    }

    @Test
    void aVerdictNamesItsKindAndEvent() {
        Verdict<String> pause = Verdict.pause(20, Duration.ofSeconds(1), Type.IN_PROGRESS_CONFLICT, 1, OUTCOME);
        Verdict<String> answer = Verdict.answer(new RequestInProgressException(KEY, Duration.ofSeconds(1)), null, 1,
                null);
        assertThat(pause.toString()).startsWith("Verdict[").endsWith(", IN_PROGRESS_CONFLICT]").doesNotContain(SECRET);
        assertThat(answer.toString()).startsWith("Verdict[").doesNotContain(",").doesNotContain("alice");
    }
}
