package dev.idem.examples;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.messaging.Delivery;
import dev.idem.messaging.Inbox;
import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxMessage;
import dev.idem.outbox.jdbc.Relay;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcConnectionPool;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Events end to end: the payments service writes each charge with an outbox row in one
 * transaction; a relay publishes {@code charge.created} to an at-least-once broker; a ledger
 * consumer with an inbox books one ledger entry per charge, in the same transaction as its
 * inbox record. The relay and the consumer are killed at seeded random points (after
 * publishing and before marking sent; mid-handler; after booking and before the ack) and
 * restarted. The audit then counts duplicate and missing ledger entries. Run with
 * {@code java -cp examples/target/idem-examples.jar dev.idem.examples.MessagingDemo
 * [--charges N] [--seed S] [--no-inbox]}; exits 0 when the audit passes, 1 when it fails.
 */
public final class MessagingDemo {
    private static final String TOPIC = "charge.created";

    private MessagingDemo() {
    }

    /** What the audit found. */
    record Result(int charges, int entries, int duplicates, int missing, int published, int redelivered,
            int relayKills, int consumerKills, int inboxDuplicates) {
        boolean passed() {
            return duplicates == 0 && missing == 0;
        }
    }

    /**
     * Runs the demo from the command line.
     *
     * @param args {@code --charges N}, {@code --seed S}, {@code --no-inbox}
     * @throws Exception if the demo cannot run
     */
    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println("usage: MessagingDemo [--charges N] [--seed S] [--no-inbox]");
            System.exit(2);
            return;
        }
        System.exit(run(o.charges(), o.seed(), o.inbox(), System.out).passed() ? 0 : 1);
    }

    /** The command line: {@code --charges N} (default 300), {@code --seed S} (42), {@code --no-inbox}. */
    record Options(int charges, long seed, boolean inbox) {
        /** Reads the options; throws {@link IllegalArgumentException} naming an unknown option or a bad value. */
        static Options parse(String... args) {
            int charges = 300;
            long seed = 42;
            boolean inbox = true;
            for (int i = 0; i < args.length; i++) {
                String option = args[i];
                if (option.equals("--no-inbox")) {
                    inbox = false;
                    continue;
                }
                if (!option.equals("--charges") && !option.equals("--seed")) {
                    throw new IllegalArgumentException("unknown option: " + option);
                }
                if (i + 1 == args.length) {
                    throw new IllegalArgumentException(option + " needs a value");
                }
                String value = args[++i];
                try {
                    if (option.equals("--charges")) {
                        charges = Integer.parseInt(value);
                    } else {
                        seed = Long.parseLong(value);
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(option + " needs a number, was '" + value + "'", e);
                }
            }
            if (charges < 1) {
                throw new IllegalArgumentException("--charges must be at least 1, was " + charges);
            }
            return new Options(charges, seed, inbox);
        }
    }

    /** A process dying at a chosen point. */
    static final class Kill extends Error {
        private static final long serialVersionUID = 1L;

        Kill(String where) {
            super(where, null, false, false);
        }
    }

    static Result run(int charges, long seed, boolean useInbox, PrintStream out) throws Exception {
        out.printf("idem messaging demo: %d charges, seed %d, in-memory H2, %s%n", charges, seed,
                useInbox ? "consumer with inbox" : "consumer WITHOUT inbox (--no-inbox)");
        // Two databases, as two services would have: payments (charges + outbox), ledger (entries + inbox).
        JdbcConnectionPool paymentsDb = JdbcConnectionPool.create("jdbc:h2:mem:payments-" + seed
                + "-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
        JdbcConnectionPool ledgerDb = JdbcConnectionPool.create("jdbc:h2:mem:ledger-" + seed
                + "-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
        paymentsDb.setMaxConnections(16);
        ledgerDb.setMaxConnections(16);
        try {
            Jdbi payments = Jdbi.create(paymentsDb);
            Jdbi ledger = Jdbi.create(ledgerDb);
            payments.useHandle(h -> h.execute("CREATE TABLE charges (id VARCHAR(64) PRIMARY KEY,"
                    + " customer VARCHAR(64) NOT NULL, amount_cents BIGINT NOT NULL)"));
            // No unique constraint on charge_id: a duplicate booking must be visible to the audit.
            ledger.useHandle(h -> h.execute("CREATE TABLE ledger_entries (charge_id VARCHAR(64) NOT NULL,"
                    + " amount_cents BIGINT NOT NULL)"));
            Outbox outbox = Outbox.builder(paymentsDb).build().createTableIfNotExists();
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ledgerDb).build().createTableIfNotExists();
            IdempotencyEngine engine = IdempotencyEngine.builder().store(store).lease(Duration.ofSeconds(5)).build();
            InMemoryBroker broker = new InMemoryBroker();
            Random faults = new Random(seed);

            Inbox<Long> inbox = Inbox.builder(Long.class).engine(engine).consumer("ledger").maxAttempts(50)
                    .transactionalHandler((m, c) -> store.inTransaction(c.key(), c.fencingToken(), c.ttl(),
                            c::encode, h -> book(h, m.eventId(), (byte[]) m.payload(), faults)))
                    .build();

            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger relayKills = new AtomicInteger();
            AtomicInteger consumerKills = new AtomicInteger();
            AtomicInteger inboxDuplicates = new AtomicInteger();
            Thread relays = new Thread(() -> superviseRelays(outbox, broker, faults, writing, relayKills), "relay");
            Thread consumers = new Thread(() -> superviseConsumers(inbox, ledger, broker, faults, useInbox,
                    writing, payments, outbox, consumerKills, inboxDuplicates), "consumer");
            relays.start();
            consumers.start();

            for (int i = 0; i < charges; i++) {
                String id = "ch_" + seed + "_" + i;
                String customer = "cus_" + (i % 17);
                long amount = 100 + faults.nextInt(10_000);
                payments.useTransaction(h -> {
                    h.createUpdate("INSERT INTO charges (id, customer, amount_cents) VALUES (:id, :c, :a)")
                            .bind("id", id).bind("c", customer).bind("a", amount).execute();
                    outbox.enqueue(h, new OutboxMessage("charge.created:" + id, TOPIC, customer,
                            ("{\"chargeId\":\"" + id + "\",\"amountCents\":" + amount + "}")
                                    .getBytes(StandardCharsets.UTF_8)));
                });
            }
            writing.set(false);
            relays.join(120_000);
            consumers.join(120_000);

            int written = payments.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM charges")
                    .mapTo(Integer.class).one());
            List<String> booked = ledger.withHandle(h -> h.createQuery("SELECT charge_id FROM ledger_entries")
                    .mapTo(String.class).list());
            List<String> chargeIds = payments.withHandle(h -> h.createQuery("SELECT id FROM charges")
                    .mapTo(String.class).list());
            int distinct = (int) booked.stream().distinct().count();
            int missing = (int) chargeIds.stream().filter(id -> !booked.contains(id)).count();
            Result r = new Result(written, booked.size(), booked.size() - distinct, missing, broker.published(),
                    broker.redelivered(), relayKills.get(), consumerKills.get(), inboxDuplicates.get());
            out.printf("relay killed %d times, consumer killed %d times; %d publishes for %d charges,"
                    + " %d redeliveries; the inbox acknowledged %d repeats without booking%n", r.relayKills(),
                    r.consumerKills(), r.published(), r.charges(), r.redelivered(), r.inboxDuplicates());
            out.println();
            out.println("=== audit ===");
            out.printf("charges written:          %d%n", r.charges());
            out.printf("ledger entries:           %d%n", r.entries());
            out.printf("duplicate ledger entries: %d%n", r.duplicates());
            out.printf("missing ledger entries:   %d%n", r.missing());
            out.println(r.passed() ? "PASS: every charge booked exactly once" : "FAIL");
            return r;
        } finally {
            paymentsDb.dispose();
            ledgerDb.dispose();
        }
    }

    /** The ledger consumer's effect, on the transaction of its inbox record; dies mid-way sometimes. */
    private static long book(Handle h, String eventId, byte[] payload, Random faults) {
        String body = new String(payload, StandardCharsets.UTF_8);
        String chargeId = body.replaceAll(".*\"chargeId\":\"([^\"]+)\".*", "$1");
        long amount = Long.parseLong(body.replaceAll(".*\"amountCents\":(\\d+).*", "$1"));
        h.createUpdate("INSERT INTO ledger_entries (charge_id, amount_cents) VALUES (:c, :a)").bind("c", chargeId)
                .bind("a", amount).execute();
        if (chance(faults, 0.05)) {
            throw new Kill("consumer killed after its write, before the commit");
        }
        return amount;
    }

    private static boolean chance(Random random, double p) {
        synchronized (random) {
            return random.nextDouble() < p;
        }
    }

    /** Runs relay instances one after another; each may be killed right after a publish. */
    private static void superviseRelays(Outbox outbox, InMemoryBroker broker, Random faults, AtomicBoolean writing,
            AtomicInteger kills) {
        while (true) {
            Relay relay = outbox.relay(r -> {
                broker.publish(new InMemoryBroker.Message("payments", r.eventId(), r.payload()));
                if (chance(faults, 0.04)) {
                    throw new Kill("relay killed after publishing, before marking sent");
                }
            }).batchSize(20).build();
            try {
                int n;
                do {
                    n = relay.runOnce();
                } while (n > 0);
                if (!writing.get() && relay.runOnce() == 0) {
                    return;
                }
                Thread.sleep(5);
            } catch (Kill k) {
                kills.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Runs consumer instances one after another; each may be killed before its ack. */
    private static void superviseConsumers(Inbox<Long> inbox, Jdbi ledger, InMemoryBroker broker, Random faults,
            boolean useInbox, AtomicBoolean writing, Jdbi payments, Outbox outbox, AtomicInteger kills,
            AtomicInteger repeats) {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline) {
            InMemoryBroker.Session session = broker.connect();
            try {
                while (true) {
                    InMemoryBroker.Message m = session.take(20);
                    if (m == null) {
                        if (!writing.get() && broker.idle() && pending(payments, outbox) == 0) {
                            return;
                        }
                        continue;
                    }
                    if (useInbox) {
                        Delivery<Long> d = inbox.handle(m.source(), m.eventId(), m.payload());
                        if (d.duplicate()) {
                            repeats.incrementAndGet();
                        }
                    } else {
                        ledger.useTransaction(h -> book(h, m.eventId(), m.payload(), faults));
                    }
                    if (chance(faults, 0.05)) {
                        throw new Kill("consumer killed after booking, before the ack");
                    }
                    session.ack(m);
                }
            } catch (Kill | RuntimeException e) {
                // The process died (or a transient failure): the broker redelivers what it had not acked.
                kills.incrementAndGet();
                session.die();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static int pending(Jdbi payments, Outbox outbox) {
        return payments.withHandle(h -> h.createQuery("SELECT COUNT(*) FROM " + outbox.tableName()
                + " WHERE state = 'P'").mapTo(Integer.class).one());
    }
}
