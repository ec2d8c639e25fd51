package dev.idem.spring;

import dev.idem.http.IncomingRequest;
import dev.idem.http.ServletIncomingRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The servlet request of the current thread as an {@link IncomingRequest} (idem-http's
 * {@link ServletIncomingRequest}), so that
 * {@link Idempotent} methods are scoped by the same principal as the filter. Loaded only when
 * Spring Web and the Servlet API are on the class path.
 */
final class ServletRequestView {
    private ServletRequestView() {
    }

    /** The current request, or a request with nothing in it when the thread serves none. */
    static IncomingRequest current() {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (attributes instanceof ServletRequestAttributes servlet) {
            return ServletIncomingRequest.of(servlet.getRequest());
        }
        return SpringPrincipals.NO_REQUEST;
    }
}
