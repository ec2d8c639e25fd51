package dev.idem.store.tck;

import dev.idem.api.store.ClaimResult.Status;
import dev.idem.api.store.RecordState;
import java.util.ArrayList;
import java.util.List;

/**
 * The sequential specification of one key's record, as a pure function: given the record
 * (or none) and the logical time, an operation yields every result the SPI allows and the
 * record after it. It is the reference the stateful test, the lockstep races and the
 * linearizability checker compare real stores with.
 *
 * <p>Time is logical (milliseconds since the test began); operations carry their lease and
 * TTL in the same unit. Where the SPI leaves a choice (a claim that finds the caller's own
 * token after a lost reply may report the claim as won), every allowed result is listed.
 * The step journal is part of the record: checkpoint replaces it, release, extension and a
 * takeover keep it, a new claim keeps it only for the same fingerprint, complete drops it.
 */
final class StoreModel {

    private StoreModel() {
    }

    /**
     * One record; {@code leaseUntil} only means something while IN_PROGRESS, {@code outcome} once COMPLETED,
     * {@code journal} is null when there is none.
     */
    record Rec(RecordState state, String fingerprint, long token, int attempt, long leaseUntil, long expiresAt,
            String outcome, String journal) {
        String describe() {
            return StoreOp.describe(state, fingerprint, token, attempt, outcome, journal);
        }

        Rec with(RecordState newState, long newLeaseUntil, long newExpiresAt, String newOutcome, String newJournal) {
            return new Rec(newState, fingerprint, token, attempt, newLeaseUntil, newExpiresAt, newOutcome,
                    newJournal);
        }
    }

    /** One key's state: its record (null if none) and the logical time. */
    record State(Rec rec, long now) {
        /** The record if it is unexpired, else null: a record whose {@code expiresAt <= now} is absent. */
        Rec live() {
            return rec != null && now < rec.expiresAt ? rec : null;
        }
    }

    /** One allowed result and the state after it. */
    record Next(String observation, State state) {
    }

    /** The empty key at logical time zero. */
    static State initial() {
        return new State(null, 0);
    }

    /** Every result {@code op} may have on {@code s}, with the state after each. */
    static List<Next> step(State s, StoreOp op) {
        Rec r = s.live();
        long now = s.now;
        List<Next> out = new ArrayList<>(2);
        if (op instanceof StoreOp.Advance a) {
            out.add(new Next("advanced", new State(r, now + a.millis())));
        } else if (op instanceof StoreOp.Find) {
            out.add(new Next(r == null ? "absent" : r.describe(), s));
        } else if (op instanceof StoreOp.Claim c) {
            claim(s, r, c, out);
        } else if (op instanceof StoreOp.Complete c) {
            if (r == null || r.token != c.token() || r.state == RecordState.RELEASED) {
                out.add(new Next("false", s));
            } else if (r.state == RecordState.COMPLETED) {
                out.add(new Next("true", s));
            } else {
                Rec done = r.with(RecordState.COMPLETED, 0, now + c.ttlMillis(), c.outcome(), null);
                out.add(new Next("true", new State(done, now)));
            }
        } else if (op instanceof StoreOp.Release rel) {
            if (r == null || r.token != rel.token() || r.state == RecordState.COMPLETED) {
                out.add(new Next("false", s));
            } else {
                Rec released = r.with(RecordState.RELEASED, 0, r.expiresAt, null, r.journal);
                out.add(new Next("true", new State(released, now)));
            }
        } else if (op instanceof StoreOp.Checkpoint cp) {
            if (r == null || r.token != cp.token() || r.state != RecordState.IN_PROGRESS) {
                out.add(new Next("false", s));
            } else {
                Rec saved = r.with(RecordState.IN_PROGRESS, r.leaseUntil, r.expiresAt, null, cp.journal());
                out.add(new Next("true", new State(saved, now)));
            }
        } else if (op instanceof StoreOp.Extend e) {
            if (r == null || r.token != e.token() || r.state != RecordState.IN_PROGRESS) {
                out.add(new Next("refused", s));
            } else {
                long lease = now + e.leaseMillis();
                Rec extended = r.with(RecordState.IN_PROGRESS, lease, Math.max(r.expiresAt, lease), null, r.journal);
                out.add(new Next("extended", new State(extended, now)));
            }
        } else {
            throw new IllegalArgumentException("no model for " + op);
        }
        return out;
    }

    private static void claim(State s, Rec r, StoreOp.Claim c, List<Next> out) {
        long now = s.now;
        long lease = now + c.leaseMillis();
        long expires = Math.max(now + c.ttlMillis(), lease);
        if (r == null) {
            Rec mine = new Rec(RecordState.IN_PROGRESS, c.fingerprint(), c.token(), 1, lease, expires, null, null);
            out.add(new Next(Status.ACQUIRED + " " + mine.describe(), new State(mine, now)));
            return;
        }
        if (r.state == RecordState.RELEASED
                || r.state == RecordState.IN_PROGRESS && now >= r.leaseUntil && r.fingerprint.equals(c.fingerprint())) {
            Status status = r.state == RecordState.RELEASED ? Status.ACQUIRED : Status.TAKEN_OVER;
            // The journal belongs to the request it was written for.
            String journal = r.fingerprint.equals(c.fingerprint()) ? r.journal : null;
            Rec mine = new Rec(RecordState.IN_PROGRESS, c.fingerprint(), c.token(), r.attempt + 1, lease, expires,
                    null, journal);
            out.add(new Next(status + " " + mine.describe(), new State(mine, now)));
        } else {
            out.add(new Next(Status.EXISTING + " " + r.describe(), s));
        }
        if (r.state == RecordState.IN_PROGRESS && r.token == c.token()) {
            // The caller's own claim already landed and its reply was lost: the store may call it won.
            for (Status won : new Status[] {Status.ACQUIRED, Status.TAKEN_OVER}) {
                out.add(new Next(won + " " + r.describe(), s));
            }
        }
    }
}
