package dev.idem.examples;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * What a run did and what the ledger holds afterwards. The run passes when every intent
 * took effect exactly once: no duplicate and no missing charge or refund, and every id the
 * client was given is the one in the ledger.
 *
 * @param charges logical charges attempted
 * @param refunds logical refunds attempted
 * @param clientAttempts HTTP attempts the client made (retries included)
 * @param proxyRequests requests that reached the proxy
 * @param responsesDropped answers the proxy dropped after the server did the work
 * @param badGateways server answers the proxy replaced by 502
 * @param unavailable 503s the proxy answered without forwarding
 * @param duplicatesSent requests the proxy sent to the server twice
 * @param delayed requests the proxy held back
 * @param replaysServed server answers marked {@code Idempotency-Status: replayed}
 * @param inProgress server answers 409 (a duplicate while the first was running)
 * @param handlerExecutions times a charge or refund handler wrote to the ledger
 * @param chargesInLedger charge rows
 * @param refundsInLedger refund rows
 * @param duplicateCharges charge rows beyond the first per intent (must be 0)
 * @param duplicateRefunds refund rows beyond the first per intent (must be 0)
 * @param missingCharges charge intents without a row or without a confirmed answer (must be 0)
 * @param missingRefunds refund intents without a row or without a confirmed answer (must be 0)
 * @param mismatchedIds confirmed ids that differ from the ledger's (must be 0)
 * @param retriesGranted retries the client's budget granted
 * @param budgetRefusals retries the budget refused
 * @param redrives logical calls the driver started again after the client gave up
 * @param elapsed wall time of the run
 */
public record Audit(int charges, int refunds, long clientAttempts, long proxyRequests, long responsesDropped,
        long badGateways, long unavailable, long duplicatesSent, long delayed, long replaysServed, long inProgress,
        long handlerExecutions, int chargesInLedger, int refundsInLedger, int duplicateCharges, int duplicateRefunds,
        int missingCharges, int missingRefunds, int mismatchedIds, long retriesGranted, long budgetRefusals,
        long redrives, Duration elapsed) {

    /** Whether every intent took effect exactly once. */
    public boolean passed() {
        return duplicateCharges == 0 && duplicateRefunds == 0 && missingCharges == 0 && missingRefunds == 0
                && mismatchedIds == 0;
    }

    /** Answers the client never got although the server did the work. */
    public long responsesLost() {
        return responsesDropped + badGateways;
    }

    /** Prints the audit table. */
    public void print(PrintStream out) {
        out.println();
        out.println("=== audit ===");
        row(out, "intents", charges + refunds + " (" + charges + " charges, " + refunds + " refunds)");
        row(out, "attempts", clientAttempts + " sent by the client, " + proxyRequests + " reached the proxy");
        row(out, "responses lost", responsesLost() + " (" + responsesDropped + " dropped, " + badGateways
                + " turned into 502) after the server did the work");
        row(out, "503 before the server", Long.toString(unavailable));
        row(out, "duplicates sent", Long.toString(duplicatesSent));
        row(out, "delayed requests", Long.toString(delayed));
        row(out, "replays served", Long.toString(replaysServed));
        row(out, "409 in progress", Long.toString(inProgress));
        row(out, "handler executions", Long.toString(handlerExecutions));
        row(out, "charges in ledger", Integer.toString(chargesInLedger));
        row(out, "refunds in ledger", Integer.toString(refundsInLedger));
        row(out, "duplicate charges", duplicateCharges + "   (must be 0)");
        row(out, "duplicate refunds", duplicateRefunds + "   (must be 0)");
        row(out, "missing charges", missingCharges + "   (must be 0)");
        row(out, "missing refunds", missingRefunds + "   (must be 0)");
        row(out, "ids not matching", mismatchedIds + "   (must be 0)");
        row(out, "retry budget used", retriesGranted + " retries granted, " + budgetRefusals + " refused, "
                + redrives + " calls re-driven");
        row(out, "time", String.format(Locale.ROOT, "%.1f s", elapsed.toMillis() / 1000.0));
        out.println(passed() ? "RESULT: PASS - every payment took effect exactly once"
                : "RESULT: FAIL - the ledger does not match the intents");
    }

    private static void row(PrintStream out, String name, String value) {
        out.printf(Locale.ROOT, "  %-22s %s%n", name, value);
    }
}
