package dev.idem.http;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A servlet request seen as an {@link IncomingRequest}: the one adapter the servlet filter and
 * framework integrations (such as idem-spring's {@code @Idempotent} scoping) share, so both read
 * the method, path, headers and principal alike. A missing URI or query reads as empty.
 */
public final class ServletIncomingRequest implements IncomingRequest {
    private final HttpServletRequest request;

    private ServletIncomingRequest(HttpServletRequest request) {
        this.request = request;
    }

    /**
     * Views {@code request}; nothing is read or copied until asked.
     *
     * @param request the servlet request
     * @return the view
     */
    public static IncomingRequest of(HttpServletRequest request) {
        return new ServletIncomingRequest(Objects.requireNonNull(request, "request"));
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String path() {
        String uri = request.getRequestURI();
        return uri == null ? "" : uri;
    }

    @Override
    public String query() {
        String query = request.getQueryString();
        return query == null ? "" : query;
    }

    @Override
    public List<String> headers(String name) {
        return Collections.list(request.getHeaders(name));
    }

    @Override
    public Optional<String> authenticatedUser() {
        Principal principal = request.getUserPrincipal();
        return principal == null ? Optional.empty() : Optional.ofNullable(principal.getName());
    }

    @Override
    public <T> Optional<T> unwrap(Class<T> type) {
        return type.isInstance(request) ? Optional.of(type.cast(request)) : Optional.empty();
    }
}
