package dev.idem.examples;

import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * What one demo run does: how many payments, from how many threads, which database, and how
 * hostile the network between client and server is. Immutable; build with {@link #builder()}
 * or {@link #parse(String...)}. Same seed, same fault plan.
 */
public final class DemoSettings {
    private final int charges;
    private final int refundEvery;
    private final int threads;
    private final long seed;
    private final String dbUrl;
    private final String dbUser;
    private final String dbPassword;
    private final double dropRate;
    private final double badGatewayRate;
    private final double unavailableRate;
    private final double duplicateRate;
    private final double delayRate;
    private final int faultyAttempts;
    private final Duration requestTimeout;
    private final boolean idempotency;

    private DemoSettings(Builder b) {
        this.charges = b.charges;
        this.refundEvery = b.refundEvery;
        this.threads = b.threads;
        this.seed = b.seed;
        this.dbUrl = b.dbUrl;
        this.dbUser = b.dbUser;
        this.dbPassword = b.dbPassword;
        this.dropRate = b.dropRate;
        this.badGatewayRate = b.badGatewayRate;
        this.unavailableRate = b.unavailableRate;
        this.duplicateRate = b.duplicateRate;
        this.delayRate = b.delayRate;
        this.faultyAttempts = b.faultyAttempts;
        this.requestTimeout = b.requestTimeout;
        this.idempotency = b.idempotency;
    }

    /** The options that take a value; an option that is neither one of them nor a flag is unknown. */
    private static final Set<String> VALUED_OPTIONS = Set.of("--charges", "--refund-every", "--threads", "--seed",
            "--db-url", "--db-user", "--db-password", "--drop-rate", "--bad-gateway-rate", "--unavailable-rate",
            "--duplicate-rate", "--delay-rate", "--faulty-attempts", "--timeout-ms");

    /** A builder with the defaults of the one-command run. */
    public static Builder builder() {
        return new Builder();
    }

    /** The command-line help. */
    public static String usage() {
        return String.join("\n",
                "usage: java -jar examples/target/idem-examples.jar [options]",
                "  --charges N           logical charges to make (default 200)",
                "  --refund-every K      refund every K-th charge (default 3; 0 = no refunds)",
                "  --threads T           client threads (default 8)",
                "  --seed S              seed of the fault plan (default 42)",
                "  --db-url URL          JDBC URL (default: a fresh in-memory H2 database),",
                "                        e.g. jdbc:h2:./target/demo-db or jdbc:postgresql://127.0.0.1:5432/app",
                "  --db-user U, --db-password P",
                "  --drop-rate R         share of attempts whose response is dropped after the server ran (0.12)",
                "  --bad-gateway-rate R  share answered 502 after the server ran (0.06)",
                "  --unavailable-rate R  share answered 503 without reaching the server (0.06)",
                "  --duplicate-rate R    share sent to the server twice at once (0.10)",
                "  --delay-rate R        share held 0.2-1.5 s before forwarding (0.10)",
                "  --faulty-attempts N   attempts per key that may be faulted (default 4; later ones pass)",
                "  --timeout-ms MS       client timeout per attempt (default 1000)",
                "  --no-idempotency      serve without idem-http, to see what the audit then finds",
                "  --help");
    }

    /**
     * Reads {@code --name value} or {@code --name=value} options.
     *
     * @throws IllegalArgumentException for an unknown option or a bad value, naming it
     */
    public static DemoSettings parse(String... args) {
        Builder b = builder();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument \"" + arg + "\"");
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (name.equals("--no-idempotency")) {
                b.idempotency(false);
                continue;
            }
            if (!VALUED_OPTIONS.contains(name)) {
                throw new IllegalArgumentException("unknown option " + name + "\n" + usage());
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + name + " needs a value");
                }
                value = args[++i];
            }
            switch (name) {
                case "--charges" -> b.charges(integer(name, value));
                case "--refund-every" -> b.refundEvery(integer(name, value));
                case "--threads" -> b.threads(integer(name, value));
                case "--seed" -> b.seed(number(name, value));
                case "--db-url" -> b.database(value, b.dbUser, b.dbPassword);
                case "--db-user" -> b.dbUser = value;
                case "--db-password" -> b.dbPassword = value;
                case "--drop-rate" -> b.dropRate(rate(name, value));
                case "--bad-gateway-rate" -> b.badGatewayRate(rate(name, value));
                case "--unavailable-rate" -> b.unavailableRate(rate(name, value));
                case "--duplicate-rate" -> b.duplicateRate(rate(name, value));
                case "--delay-rate" -> b.delayRate(rate(name, value));
                case "--faulty-attempts" -> b.faultyAttempts(integer(name, value));
                case "--timeout-ms" -> b.requestTimeout(Duration.ofMillis(number(name, value)));
                default -> throw new IllegalArgumentException("unknown option " + name + "\n" + usage());
            }
        }
        return b.build();
    }

    private static int integer(String name, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer but was \"" + value + "\"");
        }
    }

    private static long number(String name, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer but was \"" + value + "\"");
        }
    }

    private static double rate(String name, String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number but was \"" + value + "\"");
        }
    }

    /** Logical charges made. */
    public int charges() {
        return charges;
    }

    /** Every k-th charge is refunded; 0 for none. */
    public int refundEvery() {
        return refundEvery;
    }

    /** Client threads. */
    public int threads() {
        return threads;
    }

    /** Seed of the fault plan. */
    public long seed() {
        return seed;
    }

    /** The JDBC URL, or null for a fresh in-memory H2 database. */
    public String dbUrl() {
        return dbUrl;
    }

    /** The database user, or null. */
    public String dbUser() {
        return dbUser;
    }

    /** The database password, or null. */
    public String dbPassword() {
        return dbPassword;
    }

    /** Share of attempts whose response the proxy drops after the server did the work. */
    public double dropRate() {
        return dropRate;
    }

    /** Share of attempts answered 502 after the server did the work. */
    public double badGatewayRate() {
        return badGatewayRate;
    }

    /** Share of attempts answered 503 without reaching the server. */
    public double unavailableRate() {
        return unavailableRate;
    }

    /** Share of attempts the proxy sends to the server twice, concurrently. */
    public double duplicateRate() {
        return duplicateRate;
    }

    /** Share of attempts held back before forwarding. */
    public double delayRate() {
        return delayRate;
    }

    /** How many attempts per key may be faulted; later attempts pass, so every run ends. */
    public int faultyAttempts() {
        return faultyAttempts;
    }

    /** The client's timeout per attempt. */
    public Duration requestTimeout() {
        return requestTimeout;
    }

    /** Whether the service uses idem-http (false only to show what goes wrong without it). */
    public boolean idempotency() {
        return idempotency;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%d charges (refund every %d), %d threads, seed %d, %s, faults: drop %.2f,"
                + " 502 %.2f, 503 %.2f, duplicate %.2f, delay %.2f (first %d attempts per key)%s",
                charges, refundEvery, threads, seed, dbUrl == null ? "in-memory H2" : dbUrl.replaceAll("password=[^&;]*",
                        "password=***"), dropRate, badGatewayRate, unavailableRate, duplicateRate, delayRate,
                faultyAttempts, idempotency ? "" : ", IDEMPOTENCY OFF");
    }

    /** Validating builder: each setter checks its argument at once and may be called once. */
    public static final class Builder {
        private int charges = 200;
        private int refundEvery = 3;
        private int threads = 8;
        private long seed = 42;
        private String dbUrl;
        private String dbUser;
        private String dbPassword;
        private double dropRate = 0.12;
        private double badGatewayRate = 0.06;
        private double unavailableRate = 0.06;
        private double duplicateRate = 0.10;
        private double delayRate = 0.10;
        private int faultyAttempts = 4;
        private Duration requestTimeout = Duration.ofSeconds(1);
        private boolean idempotency = true;
        private final Set<String> set = new HashSet<>();

        private Builder() {
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /** Logical charges, 1..100000. */
        public Builder charges(int n) {
            once("charges");
            this.charges = range("charges", n, 1, 100_000);
            return this;
        }

        /** Refund every k-th charge, 0..1000 (0: no refunds). */
        public Builder refundEvery(int k) {
            once("refundEvery");
            this.refundEvery = range("refundEvery", k, 0, 1000);
            return this;
        }

        /** Client threads, 1..64. */
        public Builder threads(int n) {
            once("threads");
            this.threads = range("threads", n, 1, 64);
            return this;
        }

        /** Seed of the fault plan. */
        public Builder seed(long seed) {
            once("seed");
            this.seed = seed;
            return this;
        }

        /**
         * The database (default: a fresh in-memory H2 database); H2 and PostgreSQL URLs are
         * supported, with their drivers on the class path.
         */
        public Builder database(String url, String user, String password) {
            once("database");
            Objects.requireNonNull(url, "url");
            if (!url.startsWith("jdbc:h2:") && !url.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("database URL must start with jdbc:h2: or jdbc:postgresql: but was "
                        + url);
            }
            this.dbUrl = url;
            this.dbUser = user;
            this.dbPassword = password;
            return this;
        }

        /** Share of responses dropped after the server ran, 0..1. */
        public Builder dropRate(double r) {
            once("dropRate");
            this.dropRate = rate("dropRate", r);
            return this;
        }

        /** Share of 502 answers after the server ran, 0..1. */
        public Builder badGatewayRate(double r) {
            once("badGatewayRate");
            this.badGatewayRate = rate("badGatewayRate", r);
            return this;
        }

        /** Share of 503 answers without reaching the server, 0..1. */
        public Builder unavailableRate(double r) {
            once("unavailableRate");
            this.unavailableRate = rate("unavailableRate", r);
            return this;
        }

        /** Share of attempts sent twice, 0..1. */
        public Builder duplicateRate(double r) {
            once("duplicateRate");
            this.duplicateRate = rate("duplicateRate", r);
            return this;
        }

        /** Share of attempts delayed, 0..1. */
        public Builder delayRate(double r) {
            once("delayRate");
            this.delayRate = rate("delayRate", r);
            return this;
        }

        /** Attempts per key that may be faulted, 0..20. */
        public Builder faultyAttempts(int n) {
            once("faultyAttempts");
            this.faultyAttempts = range("faultyAttempts", n, 0, 20);
            return this;
        }

        /** Client timeout per attempt, 100 ms..60 s. */
        public Builder requestTimeout(Duration timeout) {
            once("requestTimeout");
            Objects.requireNonNull(timeout, "requestTimeout");
            if (timeout.toMillis() < 100 || timeout.toSeconds() > 60) {
                throw new IllegalArgumentException("requestTimeout must be within 100 ms..60 s but was " + timeout);
            }
            this.requestTimeout = timeout;
            return this;
        }

        /** Whether the service uses idem-http (default true). */
        public Builder idempotency(boolean on) {
            once("idempotency");
            this.idempotency = on;
            return this;
        }

        /**
         * Builds the settings.
         *
         * @throws IllegalArgumentException if the fault rates add up to more than 1
         */
        public DemoSettings build() {
            double sum = dropRate + badGatewayRate + unavailableRate + duplicateRate + delayRate;
            if (sum > 1.0 + 1e-9) {
                throw new IllegalArgumentException("fault rates add up to " + sum + "; at most 1 allowed");
            }
            return new DemoSettings(this);
        }

        private static int range(String name, int v, int min, int max) {
            if (v < min || v > max) {
                throw new IllegalArgumentException(name + " must be within " + min + ".." + max + " but was " + v);
            }
            return v;
        }

        private static double rate(String name, double r) {
            if (!(r >= 0 && r <= 1)) {
                throw new IllegalArgumentException(name + " must be within 0..1 but was " + r);
            }
            return r;
        }
    }
}
