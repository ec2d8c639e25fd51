package dev.idem.client.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.Optional;

/**
 * Parses an HTTP {@code Retry-After} value (RFC 9110 section 10.2.3) into a delay from {@code now}:
 * either delta-seconds or an HTTP-date in any of the three formats a recipient must accept. Not API.
 */
public final class RetryAfterParser {

    /** Longer hints are clamped; they exceed any sane deadline anyway and must not overflow. */
    static final long MAX_SECONDS = 365L * 24 * 3600;

    // The day name is dropped before parsing: it is redundant, and a wrong one is no reason to ignore
    // the server's request.

    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
    private static final DateTimeFormatter IMF_FIXDATE = formatter("dd MMM yyyy HH:mm:ss 'GMT'");

    // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT". The two-digit year is resolved separately.
    private static final DateTimeFormatter RFC_850 =
            new DateTimeFormatterBuilder()
                    .parseCaseInsensitive()
                    .appendPattern("dd-MMM-")
                    .appendValue(ChronoField.YEAR_OF_ERA, 2)
                    .appendPattern(" HH:mm:ss 'GMT'")
                    .toFormatter(Locale.ROOT);

    // asctime: "Sun Nov  6 08:49:37 1994" (the day of month is space-padded).
    private static final DateTimeFormatter ASCTIME = formatter("MMM ppd HH:mm:ss yyyy");

    private RetryAfterParser() {}

    /**
     * Returns the delay until the server wants a retry; zero for a date in the past; empty for a
     * missing or malformed value.
     */
    public static Optional<Duration> parse(String value, Instant now) {
        if (value == null) {
            return Optional.empty();
        }
        String v = value.trim();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (isDigits(v)) {
            // Skip leading zeros and clamp before parsing so that a huge value cannot overflow.
            String digits = v.replaceFirst("^0+(?=.)", "");
            long seconds = digits.length() > 12 ? MAX_SECONDS : Math.min(Long.parseLong(digits), MAX_SECONDS);
            return Optional.of(Duration.ofSeconds(seconds));
        }
        return parseDate(v, now).map(date -> until(now, date));
    }

    private static Duration until(Instant now, Instant date) {
        if (!date.isAfter(now)) {
            return Duration.ZERO;
        }
        Duration d = Duration.between(now, date);
        return d.getSeconds() >= MAX_SECONDS ? Duration.ofSeconds(MAX_SECONDS) : d;
    }

    private static Optional<Instant> parseDate(String v, Instant now) {
        int comma = v.indexOf(", ");
        if (comma > 0) {
            String rest = v.substring(comma + 2);
            Optional<LocalDateTime> fixdate = tryParse(rest, IMF_FIXDATE);
            if (fixdate.isPresent()) {
                return fixdate.map(t -> t.toInstant(ZoneOffset.UTC));
            }
            return tryParse(rest, RFC_850).map(t -> resolveTwoDigitYear(t, now).toInstant(ZoneOffset.UTC));
        }
        int space = v.indexOf(' ');
        if (space > 0) {
            return tryParse(v.substring(space + 1), ASCTIME).map(t -> t.toInstant(ZoneOffset.UTC));
        }
        return Optional.empty();
    }

    private static Optional<LocalDateTime> tryParse(String text, DateTimeFormatter format) {
        try {
            return Optional.of(LocalDateTime.parse(text, format));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static DateTimeFormatter formatter(String pattern) {
        return new DateTimeFormatterBuilder()
                .parseCaseInsensitive()
                .appendPattern(pattern)
                .toFormatter(Locale.ROOT);
    }

    /**
     * RFC 9110: a two-digit year more than 50 years in the future means the most recent past year
     * with the same last two digits.
     */
    private static LocalDateTime resolveTwoDigitYear(LocalDateTime parsed, Instant now) {
        int yy = parsed.getYear() % 100;
        int currentYear = LocalDateTime.ofInstant(now, ZoneOffset.UTC).getYear();
        int year = currentYear - currentYear % 100 + yy;
        if (year > currentYear + 50) {
            year -= 100;
        }
        return parsed.withYear(year);
    }

    private static boolean isDigits(String v) {
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }
}
