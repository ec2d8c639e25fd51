package dev.idem.spring;

import dev.idem.http.IncomingRequest;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The servlet request of the current thread as an {@link IncomingRequest}, so that
 * {@link Idempotent} methods are scoped by the same principal as the filter. Loaded only when
 * Spring Web and the Servlet API are on the class path.
 */
final class ServletRequestView implements IncomingRequest {
    private final HttpServletRequest request;

    private ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    /** The current request, or a request with nothing in it when the thread serves none. */
    static IncomingRequest current() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (attributes instanceof ServletRequestAttributes servlet) {
            return new ServletRequestView(servlet.getRequest());
        }
        return SpringPrincipals.NO_REQUEST;
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
