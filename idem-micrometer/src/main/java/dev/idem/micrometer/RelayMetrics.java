package dev.idem.micrometer;

import dev.idem.outbox.jdbc.Outbox;
import dev.idem.outbox.jdbc.OutboxBacklog;
import dev.idem.outbox.jdbc.RelayBatch;
import dev.idem.outbox.jdbc.RelayListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * An outbox relay's batches and its table's backlog as Micrometer meters: install it as the
 * relay's listener, in one call, so an operator sees a stuck relay (a growing oldest pending
 * age, retries without sends) before users do.
 *
 * <pre>{@code
 * Relay relay = outbox.relay(publisher).listener(RelayMetrics.bind(registry, outbox)).build();
 * }</pre>
 *
 * <h2>Meters</h2>
 * <table>
 *   <caption>Meters; each is tagged {@code table} (the outbox table)</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@value #PENDING}</td><td>gauge</td><td>rows waiting to be published (due or backing off)</td></tr>
 *   <tr><td>{@value #OLDEST_PENDING_AGE}</td><td>time gauge (seconds)</td><td>how long the oldest
 *       pending row has waited; 0 when none</td></tr>
 *   <tr><td>{@value #DEAD_ROWS}</td><td>gauge</td><td>dead rows kept in the table</td></tr>
 *   <tr><td>{@value #PUBLISHED}</td><td>counter</td><td>rows published and marked sent (committed batches,
 *       including those whose commit's answer was lost and which re-reading the rows showed landed)</td></tr>
 *   <tr><td>{@value #RETRIED}</td><td>counter</td><td>failed publishes rescheduled with backoff (committed batches)</td></tr>
 *   <tr><td>{@value #DEAD}</td><td>counter</td><td>rows marked dead (committed batches)</td></tr>
 *   <tr><td>{@value #RETRY_DELAY}</td><td>timer</td><td>each backoff scheduled for a retried row</td></tr>
 *   <tr><td>{@value #BATCH}</td><td>timer, tag {@code outcome} = {@code committed}, {@code failed} (rolled
 *       back) or {@code unknown} (the commit failed and the rows could not be re-read; its rows are not
 *       counted)</td><td>each batch that claimed rows or failed: claim to commit</td></tr>
 * </table>
 * The three gauges read {@link Outbox#backlog()} (one query) at most once per refresh interval
 * (default 10 s) when the registry asks, and report NaN while the database cannot answer.
 *
 * <p>Thread-safe; several relays of one outbox may share one instance.
 */
public final class RelayMetrics implements RelayListener {
    /** Gauge of pending rows. */
    public static final String PENDING = "idem.outbox.pending";
    /** Time gauge of the oldest pending row's age. */
    public static final String OLDEST_PENDING_AGE = "idem.outbox.oldest.pending.age";
    /** Gauge of dead rows in the table. */
    public static final String DEAD_ROWS = "idem.outbox.dead";
    /** Counter of rows published and marked sent. */
    public static final String PUBLISHED = "idem.outbox.relay.published";
    /** Counter of failed publishes rescheduled. */
    public static final String RETRIED = "idem.outbox.relay.retried";
    /** Counter of rows marked dead. */
    public static final String DEAD = "idem.outbox.relay.dead";
    /** Timer of the backoffs scheduled. */
    public static final String RETRY_DELAY = "idem.outbox.relay.retry.delay";
    /** Timer of batches, tagged by outcome. */
    public static final String BATCH = "idem.outbox.relay.batch";

    private static final System.Logger LOG = System.getLogger(RelayMetrics.class.getName());

    private final Outbox outbox;
    private final Clock clock;
    private final long refreshMillis;
    private final Counter published;
    private final Counter retried;
    private final Counter dead;
    private final Timer retryDelay;
    private final Timer committedBatch;
    private final Timer failedBatch;
    private final Timer unknownBatch;
    private OutboxBacklog backlog;
    private long readAt;

    private RelayMetrics(Builder b) {
        this.outbox = b.outbox;
        this.clock = b.clock;
        this.refreshMillis = b.refresh.toMillis();
        MeterRegistry registry = b.registry;
        Tags tags = Tags.of(Tag.of("table", outbox.tableName())).and(b.tags);
        Gauge.builder(PENDING, this, m -> m.read(false)).tags(tags).description("outbox rows pending")
                .register(registry);
        TimeGauge.builder(OLDEST_PENDING_AGE, this, TimeUnit.SECONDS, m -> m.read(true)).tags(tags)
                .description("age of the oldest pending outbox row").register(registry);
        Gauge.builder(DEAD_ROWS, this, RelayMetrics::deadRows).tags(tags).description("dead outbox rows")
                .register(registry);
        this.published = Counter.builder(PUBLISHED).tags(tags).register(registry);
        this.retried = Counter.builder(RETRIED).tags(tags).register(registry);
        this.dead = Counter.builder(DEAD).tags(tags).register(registry);
        this.retryDelay = Timer.builder(RETRY_DELAY).tags(tags).register(registry);
        this.committedBatch = Timer.builder(BATCH).tags(tags.and("outcome", "committed")).register(registry);
        this.failedBatch = Timer.builder(BATCH).tags(tags.and("outcome", "failed")).register(registry);
        this.unknownBatch = Timer.builder(BATCH).tags(tags.and("outcome", "unknown")).register(registry);
    }

    /**
     * The one call: meters for {@code outbox}'s relays in {@code registry}, with the defaults.
     *
     * @param registry where meters are registered
     * @param outbox the outbox whose backlog the gauges read
     * @return the listener to hand to {@code Relay.Builder.listener}
     */
    public static RelayMetrics bind(MeterRegistry registry, Outbox outbox) {
        return builder(registry, outbox).build();
    }

    /**
     * A builder for meters of {@code outbox}'s relays in {@code registry}.
     *
     * @param registry where meters are registered
     * @param outbox the outbox whose backlog the gauges read
     * @return the builder
     */
    public static Builder builder(MeterRegistry registry, Outbox outbox) {
        return new Builder(Objects.requireNonNull(registry, "registry"), Objects.requireNonNull(outbox, "outbox"));
    }

    @Override
    public void onBatch(RelayBatch batch) {
        if (batch.outcome() == RelayBatch.Outcome.UNKNOWN) {
            unknownBatch.record(batch.duration());
            return;
        }
        if (!batch.committed()) {
            failedBatch.record(batch.duration());
            return;
        }
        committedBatch.record(batch.duration());
        published.increment(batch.sent());
        retried.increment(batch.retried());
        dead.increment(batch.dead());
        for (Duration d : batch.retryDelays()) {
            retryDelay.record(d);
        }
    }

    private double read(boolean age) {
        OutboxBacklog b = backlog();
        if (b == null) {
            return Double.NaN;
        }
        return age ? b.oldestPendingAge(clock.instant()).toMillis() / 1000.0 : b.pending();
    }

    private double deadRows() {
        OutboxBacklog b = backlog();
        return b == null ? Double.NaN : b.dead();
    }

    private synchronized OutboxBacklog backlog() {
        long now = clock.millis();
        if (backlog == null || now - readAt >= refreshMillis) {
            try {
                backlog = outbox.backlog();
                readAt = now;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "outbox backlog could not be read for the relay gauges", e);
                backlog = null;
            }
        }
        return backlog;
    }

    /** Validating builder: every setter checks its argument at once and may be called once. */
    public static final class Builder {
        private final MeterRegistry registry;
        private final Outbox outbox;
        private final Set<String> set = new HashSet<>();
        private Tags tags = Tags.empty();
        private Clock clock = Clock.systemUTC();
        private Duration refresh = Duration.ofSeconds(10);

        private Builder(MeterRegistry registry, Outbox outbox) {
            this.registry = registry;
            this.outbox = outbox;
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * Extra tags on every meter (for example the service).
         *
         * @param tags the tags
         * @return this builder
         */
        public Builder tags(Iterable<Tag> tags) {
            once("tags");
            this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
            return this;
        }

        /**
         * The clock for the oldest pending age and the refresh interval; use the outbox's
         * (default system UTC).
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            once("clock");
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How long a backlog reading serves the gauges before the next query (default 10 s).
         *
         * @param refresh zero (every scrape queries) or positive
         * @return this builder
         */
        public Builder backlogRefresh(Duration refresh) {
            once("backlogRefresh");
            Objects.requireNonNull(refresh, "backlogRefresh");
            if (refresh.isNegative()) {
                throw new IllegalArgumentException("backlogRefresh must not be negative but was " + refresh);
            }
            this.refresh = refresh;
            return this;
        }

        /**
         * Registers the meters.
         *
         * @return the listener
         */
        public RelayMetrics build() {
            return new RelayMetrics(this);
        }
    }
}
