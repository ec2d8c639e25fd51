package dev.idem.store.dynamodb;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the store keeps each part of a record in the table: the key schema and the names
 * of the other attributes. Immutable; build with {@link #builder()} or take
 * {@link #defaults()}.
 *
 * <p>Two key schemas are supported:
 * <ul>
 *   <li><b>simple</b> (default): a string partition key holding the encoded idempotency key;</li>
 *   <li><b>composite</b>, for single-table designs: a string partition key holding one
 *       static value for every idem record, plus a string sort key holding the encoded
 *       idempotency key. All records then share one partition (and its throughput limit).</li>
 * </ul>
 * Attribute names are 1..{@value #MAX_NAME_LENGTH} characters and pairwise distinct.
 */
public final class TableLayout {
    /** Longest attribute name accepted; keeps the item-size budget predictable. */
    public static final int MAX_NAME_LENGTH = 64;
    /** Longest static partition key value accepted in the composite layout. */
    public static final int MAX_PARTITION_VALUE_LENGTH = 512;

    private static final TableLayout DEFAULTS = builder().build();

    private final String partitionKey;
    private final String partitionValue;
    private final String sortKey;
    private final String state;
    private final String fingerprint;
    private final String fencingToken;
    private final String attempt;
    private final String leaseUntil;
    private final String expiresAt;
    private final String ttl;
    private final String outcome;

    private TableLayout(Builder b) {
        this.partitionKey = b.partitionKey;
        this.partitionValue = b.partitionValue;
        this.sortKey = b.sortKey;
        this.state = b.state;
        this.fingerprint = b.fingerprint;
        this.fencingToken = b.fencingToken;
        this.attempt = b.attempt;
        this.leaseUntil = b.leaseUntil;
        this.expiresAt = b.expiresAt;
        this.ttl = b.ttl;
        this.outcome = b.outcome;
    }

    /** The default layout: partition key {@code pk}, attributes {@code st, fp, tok, att, lease, exp, ttl, out}. */
    public static TableLayout defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Name of the partition key attribute (type S). */
    public String partitionKey() {
        return partitionKey;
    }

    /** The static partition key value of the composite layout; empty for the simple layout. */
    public Optional<String> partitionKeyValue() {
        return Optional.ofNullable(partitionValue);
    }

    /** Name of the sort key attribute (type S) of the composite layout; empty for the simple layout. */
    public Optional<String> sortKey() {
        return Optional.ofNullable(sortKey);
    }

    /** Whether this is the composite (static partition key plus sort key) layout. */
    public boolean composite() {
        return sortKey != null;
    }

    /** The attribute holding the encoded idempotency key: the sort key if composite, else the partition key. */
    public String idAttribute() {
        return sortKey != null ? sortKey : partitionKey;
    }

    /** Record state, one letter (S). */
    public String state() {
        return state;
    }

    /** Request fingerprint (B). */
    public String fingerprint() {
        return fingerprint;
    }

    /** Fencing token of the latest claim (N). */
    public String fencingToken() {
        return fencingToken;
    }

    /** Attempt number (N). */
    public String attempt() {
        return attempt;
    }

    /** Lease deadline in epoch milliseconds (N), present only while IN_PROGRESS. */
    public String leaseUntil() {
        return leaseUntil;
    }

    /** Exact expiry in epoch milliseconds (N), used by every condition and read. */
    public String expiresAt() {
        return expiresAt;
    }

    /** Expiry in epoch seconds, rounded up (N): the attribute to enable DynamoDB TTL on. */
    public String ttl() {
        return ttl;
    }

    /** Stored outcome (B), present only when COMPLETED. */
    public String outcome() {
        return outcome;
    }

    @Override
    public String toString() {
        return "TableLayout[" + (composite()
                ? "partitionKey=" + partitionKey + "='" + partitionValue + "', sortKey=" + sortKey
                : "partitionKey=" + partitionKey)
                + ", state=" + state + ", fingerprint=" + fingerprint + ", fencingToken=" + fencingToken
                + ", attempt=" + attempt + ", leaseUntil=" + leaseUntil + ", expiresAt=" + expiresAt
                + ", ttl=" + ttl + ", outcome=" + outcome + "]";
    }

    /** Validating builder: every setter checks its argument at once; {@link #build()} checks names are distinct. */
    public static final class Builder {
        private String partitionKey = "pk";
        private String partitionValue;
        private String sortKey;
        private String state = "st";
        private String fingerprint = "fp";
        private String fencingToken = "tok";
        private String attempt = "att";
        private String leaseUntil = "lease";
        private String expiresAt = "exp";
        private String ttl = "ttl";
        private String outcome = "out";

        private Builder() {
        }

        /** Simple layout: the partition key attribute holds the encoded idempotency key (default {@code pk}). */
        public Builder partitionKey(String name) {
            this.partitionKey = name("partitionKey", name);
            this.partitionValue = null;
            this.sortKey = null;
            return this;
        }

        /**
         * Composite layout for single-table designs: every idem record has
         * {@code partitionKeyName = partitionKeyValue}, and {@code sortKeyName} holds the
         * encoded idempotency key.
         */
        public Builder compositeKey(String partitionKeyName, String partitionKeyValue, String sortKeyName) {
            String pk = name("partitionKeyName", partitionKeyName);
            String sk = name("sortKeyName", sortKeyName);
            if (partitionKeyValue == null || partitionKeyValue.isEmpty()
                    || partitionKeyValue.length() > MAX_PARTITION_VALUE_LENGTH) {
                throw new IllegalArgumentException("partitionKeyValue must be 1.." + MAX_PARTITION_VALUE_LENGTH
                        + " characters but was " + describe(partitionKeyValue));
            }
            this.partitionKey = pk;
            this.partitionValue = partitionKeyValue;
            this.sortKey = sk;
            return this;
        }

        /** Name of the state attribute (default {@code st}). */
        public Builder stateAttribute(String name) {
            this.state = name("stateAttribute", name);
            return this;
        }

        /** Name of the fingerprint attribute (default {@code fp}). */
        public Builder fingerprintAttribute(String name) {
            this.fingerprint = name("fingerprintAttribute", name);
            return this;
        }

        /** Name of the fencing token attribute (default {@code tok}). */
        public Builder fencingTokenAttribute(String name) {
            this.fencingToken = name("fencingTokenAttribute", name);
            return this;
        }

        /** Name of the attempt attribute (default {@code att}). */
        public Builder attemptAttribute(String name) {
            this.attempt = name("attemptAttribute", name);
            return this;
        }

        /** Name of the lease deadline attribute, epoch milliseconds (default {@code lease}). */
        public Builder leaseUntilAttribute(String name) {
            this.leaseUntil = name("leaseUntilAttribute", name);
            return this;
        }

        /** Name of the exact expiry attribute, epoch milliseconds (default {@code exp}). */
        public Builder expiresAtAttribute(String name) {
            this.expiresAt = name("expiresAtAttribute", name);
            return this;
        }

        /** Name of the DynamoDB TTL attribute, epoch seconds (default {@code ttl}). */
        public Builder ttlAttribute(String name) {
            this.ttl = name("ttlAttribute", name);
            return this;
        }

        /** Name of the outcome attribute (default {@code out}). */
        public Builder outcomeAttribute(String name) {
            this.outcome = name("outcomeAttribute", name);
            return this;
        }

        /**
         * Builds the layout.
         *
         * @throws IllegalArgumentException if two attributes share a name
         */
        public TableLayout build() {
            Map<String, String> seen = new LinkedHashMap<>();
            put(seen, "partitionKey", partitionKey);
            if (sortKey != null) {
                put(seen, "sortKey", sortKey);
            }
            put(seen, "state", state);
            put(seen, "fingerprint", fingerprint);
            put(seen, "fencingToken", fencingToken);
            put(seen, "attempt", attempt);
            put(seen, "leaseUntil", leaseUntil);
            put(seen, "expiresAt", expiresAt);
            put(seen, "ttl", ttl);
            put(seen, "outcome", outcome);
            return new TableLayout(this);
        }

        private static void put(Map<String, String> seen, String role, String name) {
            String other = seen.putIfAbsent(name, role);
            if (other != null) {
                throw new IllegalArgumentException(
                        "attribute name '" + name + "' is used for both " + other + " and " + role);
            }
        }

        private static String name(String what, String name) {
            Objects.requireNonNull(name, what);
            if (name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
                throw new IllegalArgumentException(what + " must be 1.." + MAX_NAME_LENGTH
                        + " characters but was " + describe(name));
            }
            return name;
        }

        private static String describe(String s) {
            if (s == null) {
                return "null";
            }
            return s.length() > 80 ? s.length() + " characters long" : "'" + s + "'";
        }
    }
}
