package dev.idem.http;

import java.util.List;
import java.util.Optional;

/**
 * What the resolvers may look at: a read-only, server-neutral view of the request line,
 * headers and authenticated principal. Deliberately no body, so a scope can never be taken
 * from client-controlled payload.
 */
public interface IncomingRequest {
    /**
     * The request method, upper case as sent (for example {@code POST}).
     *
     * @return the request method, upper case as sent (for example {@code POST})
     */
    String method();

    /**
     * The request path, not decoded, without the query string (for example {@code /v1/charges}).
     *
     * @return the request path, not decoded, without the query string (for example {@code /v1/charges})
     */
    String path();

    /**
     * The raw query string without {@code ?}, or empty.
     *
     * @return the raw query string without {@code ?}, or empty
     */
    String query();

    /**
     * Every value of the header {@code name} (case-insensitive), in order; empty if absent.
     *
     * @param name the header name
     * @return every value of the header {@code name} (case-insensitive), in order
     */
    List<String> headers(String name);

    /**
     * The first value of the header {@code name}, if any.
     *
     * @param name the header name
     * @return the first value of the header {@code name}, if any
     */
    default Optional<String> header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    /**
     * The name of the principal the server authenticated, if any: the JDK server's
     * {@code HttpPrincipal.getName()} ({@code realm:user}), the servlet's
     * {@code getUserPrincipal().getName()}.
     *
     * @return the name of the principal the server authenticated, if any
     */
    Optional<String> authenticatedUser();

    /**
     * The server's own request object, when it is a {@code type}: the servlet's
     * {@code HttpServletRequest}, the JDK server's {@code HttpExchange}. For integrations that
     * need more than this view (a framework's route matching, say); resolvers that only read the
     * view stay portable across servers.
     *
     * @param <T> the wanted type
     * @param type the wanted type
     * @return the server's request object, if it is a {@code type}
     */
    default <T> Optional<T> unwrap(Class<T> type) {
        return Optional.empty();
    }
}
