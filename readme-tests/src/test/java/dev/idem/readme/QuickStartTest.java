package dev.idem.readme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.idem.api.FinalFailureException;
import dev.idem.api.IdempotencyKey;
import dev.idem.api.IdempotencyKeyHeader;
import dev.idem.api.LeaseLostException;
import dev.idem.api.ReplayedFailureException;
import dev.idem.api.RequestInProgressException;
import dev.idem.engine.CallOptions;
import dev.idem.engine.FailureDecision;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.InProgressPolicy;
import dev.idem.engine.Result;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.memory.MemoryIdempotencyStore;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The engine and store-jdbc READMEs' plain-Java examples, run as they are printed. */
@Timeout(60)
class QuickStartTest {
    /** What the client sends: a record, a POJO or a Map (anything Jackson writes). */
    record ChargeRequest(String customer, long amountCents) {
    }

    /** What the work returns, stored and replayed. */
    record Charge(String id, long amountCents) {
    }

    static final class CardDeclinedException extends RuntimeException {
        CardDeclinedException(String message) {
            super(message);
        }
    }

    /** A payment provider that deduplicates by the key it is given, as real ones do. */
    static final class PaymentGateway {
        final AtomicInteger charges = new AtomicInteger();

        Charge charge(ChargeRequest request, String downstreamKey) {
            if (request.amountCents() > 100_000) {
                throw new CardDeclinedException("amount over the card's limit");
            }
            charges.incrementAndGet();
            return new Charge("ch_" + downstreamKey.hashCode(), request.amountCents());
        }
    }

    private final PaymentGateway gateway = new PaymentGateway();

    static DataSource h2() {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:readme-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        Jdbi.create(ds).useHandle(h -> h.execute(
                "create table charges (id varchar(64) primary key, customer varchar(64), amount_cents bigint)"));
        return ds;
    }

    @Test
    void quickStart() {
        DataSource dataSource = h2();
        String headerValue = "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"";
        String customerId = "customer-42";
        ChargeRequest chargeRequest = new ChargeRequest("customer-42", 1_000);

        // The store: here the application's database (the table is created once; see store-jdbc).
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();

        // tag::classifier[]
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(store)
                // Failures are transient by default (the key is released, a retry runs again);
                // a failure that no retry can fix is final: stored and replayed to every retry.
                .failureClassifier(e -> e instanceof CardDeclinedException
                        ? FailureDecision.finalFailure("card-declined", e.getMessage())
                        : FailureDecision.transientFailure())
                .build();
        // end::classifier[]

        // Who asks, what for, and the client's token (the Idempotency-Key header, quoted or bare).
        String clientKey = IdempotencyKeyHeader.parse(headerValue);
        IdempotencyKey key = IdempotencyKey.inScope(customerId).operation("create-charge").key(clientKey);

        // Runs the work once per key; a duplicate gets the first call's Charge without running it.
        Charge charge = engine.call(key, chargeRequest, Charge.class,
                ctx -> gateway.charge(chargeRequest, ctx.downstreamKey()));   // the provider dedupes too

        // Where it matters whether this call ran the work or replayed it (an HTTP answer):
        Result<Charge> again = engine.execute(key, chargeRequest, Charge.class,
                ctx -> gateway.charge(chargeRequest, ctx.downstreamKey()));
        boolean replayed = again.replayed();   // true: nothing ran, again.value() equals charge

        assertThat(replayed).isTrue();
        assertThat(again.value()).isEqualTo(charge);
        assertThat(gateway.charges).hasValue(1);

        // tag::final-failure[]
        ChargeRequest tooMuch = new ChargeRequest("customer-42", 500_000);
        IdempotencyKey other = IdempotencyKey.inScope(customerId).operation("create-charge").key("k-2");
        try {
            engine.call(other, tooMuch, Charge.class, ctx -> gateway.charge(tooMuch, ctx.downstreamKey()));
        } catch (FinalFailureException declined) {
            // 422; declined.code() is "card-declined". Every retry with this key gets a
            // ReplayedFailureException with the same code and message, without running the work.
        }
        // end::final-failure[]
        assertThatThrownBy(() -> engine.call(other, tooMuch, Charge.class, ctx -> {
            throw new AssertionError("a final failure is replayed, never run again");
        })).isInstanceOfSatisfying(ReplayedFailureException.class,
                e -> assertThat(e.code()).isEqualTo("card-declined"));

        // The charge row and the stored outcome commit in one transaction of the same database,
        // so a crash leaves both or neither. The engine must be on this same store.
        IdempotencyKey orderKey = IdempotencyKey.inScope(customerId).operation("create-charge").key("k-3");
        Charge booked = engine.callAtomically(orderKey, chargeRequest, Charge.class,
                store.transactional(handle -> {          // a Jdbi Handle in the transaction
                    String id = "ch_" + UUID.randomUUID();
                    handle.execute("insert into charges (id, customer, amount_cents) values (?, ?, ?)",
                            id, chargeRequest.customer(), chargeRequest.amountCents());
                    return new Charge(id, chargeRequest.amountCents());
                }));
        Charge replay = engine.callAtomically(orderKey, chargeRequest, Charge.class,
                store.transactional(handle -> {
                    throw new AssertionError("replayed, never run again");
                }));
        assertThat(replay).isEqualTo(booked);
        int rows = Jdbi.create(dataSource).withHandle(h -> h.createQuery("select count(*) from charges")
                .mapTo(Integer.class).one());
        assertThat(rows).isEqualTo(1);
    }

    @Test
    void waitForAnInProgressDuplicate() throws Exception {
        IdempotencyEngine engine = IdempotencyEngine.builder().store(MemoryIdempotencyStore.create()).build();
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("create-charge").key("w-1");
        ChargeRequest chargeRequest = new ChargeRequest("c", 10);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread first = new Thread(() -> engine.call(key, chargeRequest, Charge.class, ctx -> {
            started.countDown();
            finish.await(30, TimeUnit.SECONDS);
            return new Charge("ch_1", 10);
        }));
        first.start();
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> engine.call(key, chargeRequest, Charge.class, ctx -> new Charge("ch_2", 10)))
                .isInstanceOfSatisfying(RequestInProgressException.class,
                        e -> assertThat(e.retryAfter()).isLessThanOrEqualTo(Duration.ofSeconds(1)));
        finish.countDown();

        // tag::wait[]
        CallOptions waitTwoSeconds = CallOptions.builder()
                .inProgress(InProgressPolicy.waitUpTo(Duration.ofSeconds(2)))
                .build();
        Charge charge = engine.execute(key, chargeRequest, Charge.class, waitTwoSeconds,
                ctx -> gateway.charge(chargeRequest, ctx.downstreamKey())).value();
        // end::wait[]
        first.join(30_000);
        assertThat(charge).isEqualTo(new Charge("ch_1", 10));
        assertThat(gateway.charges).hasValue(0);
    }

    @Test
    void javaTimeInARequest() {
        record Booking(String room, Instant from) {
        }
        // tag::jsr310[]
        ObjectMapper mapper = JsonMapper.builder().addModule(new JavaTimeModule()).build();
        IdempotencyEngine engine = IdempotencyEngine.builder()
                .store(MemoryIdempotencyStore.create())
                .objectMapper(mapper)          // requests and results may now hold Instant, LocalDate, ...
                .build();
        // end::jsr310[]
        IdempotencyKey key = IdempotencyKey.inScope("c").operation("book").key("b-1");
        Booking booking = new Booking("101", Instant.parse("2026-11-26T10:00:00Z"));
        assertThat(engine.call(key, booking, Booking.class, ctx -> booking)).isEqualTo(booking);
    }

    @Test
    void atomicStepAndCompleteWithin() {
        DataSource dataSource = h2();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build().createTableIfNotExists();
        IdempotencyEngine engine = IdempotencyEngine.builder().store(store).build();
        ChargeRequest chargeRequest = new ChargeRequest("customer-42", 700);
        IdempotencyKey orderKey = IdempotencyKey.inScope("customer-42").operation("place-order").key("s-1");

        Charge first = engine.call(orderKey, chargeRequest, Charge.class, ctx -> {
            // tag::atomic-step[]
            // The step's row and its journal entry commit in one transaction of the store's database.
            Charge c = ctx.atomicStep("charge", Charge.class, cp -> store.checkpointInTransaction(
                    ctx.key(), cp.fencingToken(), cp::journalWith, handle -> {
                        Charge row = new Charge("ch_" + UUID.randomUUID(), chargeRequest.amountCents());
                        handle.execute("insert into charges (id, customer, amount_cents) values (?, ?, ?)",
                                row.id(), chargeRequest.customer(), row.amountCents());
                        return row;
                    }));
            // end::atomic-step[]
            return c;
        });
        assertThat(first.amountCents()).isEqualTo(700);

        String customerId = "customer-42";
        String clientKey = "t-1";
        // tag::complete-within[]
        // A transaction the application opens itself (here Jdbi's; with Spring or jOOQ, the handle
        // over the connection of the transaction they manage): the charge row and the completion
        // commit or roll back together.
        IdempotencyKey key = IdempotencyKey.inScope(customerId).operation("create-charge").key(clientKey);
        Jdbi jdbi = Jdbi.create(dataSource);                      // the store's database
        Charge charge = engine.callAtomically(key, chargeRequest, Charge.class, (ctx, completion) ->
                jdbi.inTransaction(handle -> {
                    Charge c = new Charge("ch_" + UUID.randomUUID(), chargeRequest.amountCents());
                    handle.execute("insert into charges (id, customer, amount_cents) values (?, ?, ?)",
                            c.id(), chargeRequest.customer(), c.amountCents());   // your writes
                    if (!store.completeWithin(handle, ctx.key(), ctx.fencingToken(), completion.encode(c),
                            completion.ttl())) {
                        // Another worker took the key over: roll back, write nothing.
                        throw new LeaseLostException(ctx.key(), ctx.fencingToken());
                    }
                    return c;
                }));
        // end::complete-within[]
        assertThat(engine.callAtomically(key, chargeRequest, Charge.class, (ctx, completion) -> {
            throw new AssertionError("replayed, never run again");
        })).isEqualTo(charge);
        int rows = jdbi.withHandle(h -> h.createQuery("select count(*) from charges").mapTo(Integer.class).one());
        assertThat(rows).isEqualTo(2);
    }
}
