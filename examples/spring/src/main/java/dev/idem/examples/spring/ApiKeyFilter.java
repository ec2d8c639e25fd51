package dev.idem.examples.spring;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Lets through only requests whose {@code X-Api-Key} is a known key. idem scopes records by this
 * header (hashed), and a header principal is only as good as whatever checks it: without this
 * filter anyone could send another tenant's key value and be scoped as that tenant. In a real
 * service this is Spring Security (or a gateway) authenticating the caller.
 */
public class ApiKeyFilter extends OncePerRequestFilter {
    private final Set<String> keys;

    /**
     * A filter accepting {@code keys}.
     *
     * @param keys the known API keys
     */
    public ApiKeyFilter(Set<String> keys) {
        this.keys = Set.copyOf(keys);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String key = request.getHeader("X-Api-Key");
        if (key == null || !keys.contains(key)) {
            response.setStatus(401);
            response.setContentType("application/problem+json");
            response.getWriter().write("{\"title\":\"Unauthorized\",\"status\":401,"
                    + "\"detail\":\"a known X-Api-Key is required\"}");
            return;
        }
        chain.doFilter(request, response);
    }
}
