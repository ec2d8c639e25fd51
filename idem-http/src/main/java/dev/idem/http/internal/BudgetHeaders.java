package dev.idem.http.internal;

import dev.idem.api.InvalidRequestTimeoutException;
import dev.idem.api.RequestTimeoutHeader;
import dev.idem.api.time.Deadline;
import dev.idem.http.HttpIdempotency;
import dev.idem.http.IncomingRequest;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The caller's budget of a request: {@code X-Request-Timeout} and the deadline headers the
 * configuration names, the shortest one winning. Each header's format: {@code grpc-timeout} as gRPC
 * writes it (one to eight digits and a unit, which is required); {@code x-envoy-expected-rq-timeout-ms}
 * whole milliseconds (one to eighteen digits); any other name the format of {@code X-Request-Timeout}.
 * A header that is repeated or malformed is refused as a malformed {@code X-Request-Timeout} is.
 * Not API.
 */
public final class BudgetHeaders {
    private final List<String> names;

    /** The budget of {@code X-Request-Timeout} and of {@code names}. */
    public BudgetHeaders(List<String> names) {
        this.names = List.copyOf(names);
    }

    /**
     * The shortest budget the request carries, if any.
     *
     * @throws InvalidRequestTimeoutException if one of the headers is repeated or malformed (the message names it)
     */
    public Optional<Duration> budget(IncomingRequest request) {
        Optional<Duration> shortest = RequestTimeoutHeader.parse(request.headers(RequestTimeoutHeader.NAME));
        for (String name : names) {
            Optional<Duration> budget = parse(name, request.headers(name));
            if (budget.isPresent() && (shortest.isEmpty() || budget.get().compareTo(shortest.get()) < 0)) {
                shortest = budget;
            }
        }
        return shortest;
    }

    /** The budget one named header carries. */
    static Optional<Duration> parse(String name, List<String> values) {
        if (values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw new InvalidRequestTimeoutException("the " + name + " field must appear once, but appeared "
                    + values.size() + " times");
        }
        String value = values.get(0).strip();
        switch (name.toLowerCase(Locale.ROOT)) {
            case HttpIdempotency.GRPC_TIMEOUT:
                if (!value.matches("[0-9]{1,8}[HMSmun]")) {
                    throw new InvalidRequestTimeoutException("the " + name + " field must be one to eight digits and"
                            + " a unit (H, M, S, m, u or n), but was " + quoted(value));
                }
                return Optional.of(RequestTimeoutHeader.parse(value));
            case HttpIdempotency.ENVOY_EXPECTED_TIMEOUT:
                if (!value.matches("[0-9]{1,18}")) {
                    throw new InvalidRequestTimeoutException("the " + name + " field must be a whole number of"
                            + " milliseconds, but was " + quoted(value));
                }
                Duration ms = Duration.ofMillis(Long.parseLong(value));
                return Optional.of(ms.compareTo(Deadline.MAX_BUDGET) > 0 ? Deadline.MAX_BUDGET : ms);
            default:
                try {
                    return Optional.of(RequestTimeoutHeader.parse(value));
                } catch (InvalidRequestTimeoutException e) {
                    throw new InvalidRequestTimeoutException(e.getMessage().replace(RequestTimeoutHeader.NAME, name));
                }
        }
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
