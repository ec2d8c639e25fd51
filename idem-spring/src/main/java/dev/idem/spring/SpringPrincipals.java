package dev.idem.spring;

import dev.idem.api.CallerScope;
import dev.idem.http.IncomingRequest;
import dev.idem.http.PrincipalResolver;
import java.util.List;
import java.util.Optional;
import org.springframework.util.ClassUtils;

/**
 * The one scoping rule of the servlet filter and of {@link Idempotent} methods: the records of
 * a call are scoped by, in order,
 * <ol>
 *   <li>the authenticated (not anonymous) user of Spring Security's context, when Spring
 *       Security is on the class path;</li>
 *   <li>the servlet container's authenticated user ({@code getUserPrincipal()});</li>
 *   <li>the SHA-256 of the configured principal header ({@code api-key:<digest>}), when one is
 *       configured.</li>
 * </ol>
 * A user's name becomes the scope through {@link CallerScope#of} (a name spelled like another
 * caller's scope is replaced by its digest), the header through {@link CallerScope#ofApiKey}.
 * An authenticated principal always beats the header: a logged-in user cannot borrow another
 * tenant's key space by sending a header. A header principal is only as good as whatever checks
 * that header: verify the API key before (or behind) the filter, or anyone can scope their
 * requests as anyone else's key by sending its value. None of these: empty (the filter answers
 * 401; an {@code @Idempotent} call without a scope expression fails with
 * {@link MissingScopeException}).
 */
public final class SpringPrincipals {
    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.core.context.SecurityContextHolder", SpringPrincipals.class.getClassLoader());

    private SpringPrincipals() {
    }

    /**
     * The rule above.
     *
     * @param principalHeader the API-key header to fall back to, or null for none
     * @return the resolver
     */
    public static PrincipalResolver standard(String principalHeader) {
        PrincipalResolver header = principalHeader == null || principalHeader.isBlank() ? null
                : PrincipalResolver.apiKeyHeader(principalHeader.strip());
        return new PrincipalResolver() {
            @Override
            public Optional<String> resolve(IncomingRequest request) {
                Optional<String> user = user(request);
                return user.isPresent() || header == null ? user : header.resolve(request);
            }

            // A user's name is encoded (it may spell any scope); the header's scope is the key's own.
            @Override
            public Optional<String> scope(IncomingRequest request) {
                Optional<String> user = user(request);
                return user.isPresent() ? user.map(CallerScope::of)
                        : header == null ? Optional.empty() : header.scope(request);
            }
        };
    }

    private static Optional<String> user(IncomingRequest request) {
        if (SECURITY) {
            Optional<String> user = SecurityContextPrincipal.current();
            if (user.isPresent()) {
                return user;
            }
        }
        return request.authenticatedUser().filter(n -> !n.isEmpty());
    }

    /** A request with nothing in it: a call made outside any HTTP request. */
    static final IncomingRequest NO_REQUEST = new IncomingRequest() {
        @Override
        public String method() {
            return "";
        }

        @Override
        public String path() {
            return "";
        }

        @Override
        public String query() {
            return "";
        }

        @Override
        public List<String> headers(String name) {
            return List.of();
        }

        @Override
        public Optional<String> authenticatedUser() {
            return Optional.empty();
        }
    };
}
