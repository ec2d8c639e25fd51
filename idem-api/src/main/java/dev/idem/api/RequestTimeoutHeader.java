package dev.idem.api;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * The {@code X-Request-Timeout} request header: how much longer the caller waits for the answer,
 * sent beside {@code Idempotency-Key}. idem-client writes it on every attempt; the HTTP adapters
 * read it, refuse a request whose budget is spent before claiming anything, bound a duplicate's
 * wait by it and hand the deadline to the work.
 *
 * <p>Format: one to eight ASCII digits, optionally followed by one of grpc-timeout's unit letters;
 * without a unit the number is milliseconds. Optional whitespace around the value is ignored.
 * <pre>
 * X-Request-Timeout = 1*8DIGIT [ unit ]
 * unit = "H" (hours) / "M" (minutes) / "S" (seconds) / "m" (milliseconds) / "u" (microseconds) / "n" (nanoseconds)
 * </pre>
 * So {@code 2500} and {@code 2500m} are 2.5 seconds, {@code 3S} is three seconds, {@code 250000u} a quarter of one.
 * {@code 0} is a budget already spent (a valid value: the request is refused, not malformed).
 * Malformed, answered with 400 ({@link InvalidRequestTimeoutException}): a repeated field (or a
 * comma-separated list), an empty value, a sign, a fraction, an exponent, more than eight digits,
 * inner whitespace, any other unit. A value longer than {@link dev.idem.api.time.Deadline#MAX_BUDGET}
 * (only possible with {@code H} or {@code M}) is read as that. The {@code grpc-timeout} header
 * itself is not read.
 */
public final class RequestTimeoutHeader {

    /** The field name, {@value}. */
    public static final String NAME = "X-Request-Timeout";

    /** The most digits a value has, {@value} (as in grpc-timeout). */
    public static final int MAX_DIGITS = 8;

    private static final long MAX_VALUE = 99_999_999L;

    private RequestTimeoutHeader() {
    }

    /**
     * The budget carried by the field's values, as a server received them.
     *
     * @param values every value of the field in the request, in order (empty if absent)
     * @return the budget, or empty if the field is absent
     * @throws InvalidRequestTimeoutException (400) if the field is repeated or a value is malformed
     */
    public static Optional<Duration> parse(List<String> values) {
        if (values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw new InvalidRequestTimeoutException("the " + NAME + " field must appear once, but appeared "
                    + values.size() + " times");
        }
        return Optional.of(parse(values.get(0)));
    }

    /**
     * The budget carried by one field value.
     *
     * @param value the field value, for example {@code 2500} or {@code 3S}
     * @return the budget, zero or more, at most {@link dev.idem.api.time.Deadline#MAX_BUDGET}
     * @throws InvalidRequestTimeoutException (400) if the value is malformed; the message says how
     */
    public static Duration parse(String value) {
        String v = FieldValues.trimOws(value);
        if (v.isEmpty()) {
            throw invalid("is empty");
        }
        if (v.indexOf(',') >= 0) {
            throw invalid("must appear once, but holds a list (" + quoted(v) + ")");
        }
        int digits = 0;
        while (digits < v.length() && v.charAt(digits) >= '0' && v.charAt(digits) <= '9') {
            digits++;
        }
        if (digits == 0) {
            throw invalid("must start with a digit (a whole number of milliseconds, or of the unit after it)"
                    + " but was " + quoted(v));
        }
        if (digits > MAX_DIGITS) {
            throw invalid("has " + digits + " digits; at most " + MAX_DIGITS + " are allowed (use a unit: S, M, H)");
        }
        long amount = Long.parseLong(v, 0, digits, 10);
        String unit = v.substring(digits);
        switch (unit) {
            case "":
            case "m":
                return Duration.ofMillis(amount);
            case "S":
                return Duration.ofSeconds(amount);
            case "M":
                return cap(Duration.ofMinutes(amount));
            case "H":
                return cap(Duration.ofHours(amount));
            case "u":
                return Duration.of(amount, ChronoUnit.MICROS);
            case "n":
                return Duration.ofNanos(amount);
            default:
                throw invalid("has an unknown unit " + quoted(unit) + "; the units are H, M, S, m, u and n, and a"
                        + " number alone is milliseconds");
        }
    }

    /**
     * The field value for a budget, as idem-client sends it: whole milliseconds, rounded down so it
     * never claims more time than there is ({@code 2500} for 2.5 s); a budget over 99,999,999 ms is
     * written in whole seconds ({@code S}), minutes or hours, still rounded down.
     *
     * @param budget the time left, zero or more
     * @return the field value
     * @throws IllegalArgumentException if {@code budget} is negative
     */
    public static String format(Duration budget) {
        if (budget.isNegative()) {
            throw new IllegalArgumentException("a budget must not be negative but was " + budget);
        }
        if (budget.compareTo(Duration.ofMillis(MAX_VALUE + 1)) < 0) {
            return Long.toString(budget.toMillis());
        }
        long seconds = budget.getSeconds();
        if (seconds <= MAX_VALUE) {
            return seconds + "S";
        }
        long minutes = seconds / 60;
        if (minutes <= MAX_VALUE) {
            return minutes + "M";
        }
        return Math.min(MAX_VALUE, minutes / 60) + "H";
    }

    private static Duration cap(Duration d) {
        return d.compareTo(dev.idem.api.time.Deadline.MAX_BUDGET) > 0 ? dev.idem.api.time.Deadline.MAX_BUDGET : d;
    }

    private static InvalidRequestTimeoutException invalid(String what) {
        return new InvalidRequestTimeoutException("the " + NAME + " field " + what);
    }

    private static String quoted(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length() && i < 40; i++) {
            char c = s.charAt(i);
            out.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return out.append(s.length() > 40 ? "...\"" : "\"").toString();
    }
}
