package dev.idem.http;

import dev.idem.http.internal.Digests;
import java.util.Objects;
import java.util.Optional;

/**
 * Names whose keys a request uses: the scope of its idempotency key. Two principals never
 * see each other's outcomes even with the same key. Must be derived from authentication
 * (the authenticated user, a verified API key), never from the request body. An empty
 * result means "unknown caller": the request is refused with 401 and nothing is stored.
 */
@FunctionalInterface
public interface PrincipalResolver {
    /**
     * The principal of {@code request}, or empty if the caller is not authenticated.
     *
     * @param request the incoming request
     * @return the principal of {@code request}, or empty if the caller is not authenticated
     */
    Optional<String> resolve(IncomingRequest request);

    /**
     * This resolver's principal, else {@code fallback}'s: for example
     * {@code authenticatedUser().orElse(apiKeyHeader("X-Api-Key"))}, where a logged-in user always
     * beats the header, so no caller can borrow another's key space by sending one. An empty
     * name counts as none.
     *
     * @param fallback asked when this resolver names nobody
     * @return the combined resolver
     */
    default PrincipalResolver orElse(PrincipalResolver fallback) {
        Objects.requireNonNull(fallback, "fallback");
        return request -> {
            Optional<String> first = resolve(request).filter(name -> !name.isEmpty());
            return first.isPresent() ? first : fallback.resolve(request);
        };
    }

    /**
     * The principal the server authenticated (the default).
     *
     * @return a resolver that returns the principal the server authenticated (the default)
     */
    static PrincipalResolver authenticatedUser() {
        return IncomingRequest::authenticatedUser;
    }

    /**
     * The value of an API-key header, as a SHA-256 digest so the secret itself is never
     * stored in the idempotency table. Verify the key before this filter runs, or behind it;
     * an unknown key only ever scopes its own records.
     *
     * @param headerName the API-key header
     * @return a resolver that returns the value of an API-key header, as a SHA-256 digest so the secret itself is never stored in the idempotency table
     * @throws IllegalArgumentException if {@code headerName} is blank
     */
    static PrincipalResolver apiKeyHeader(String headerName) {
        Objects.requireNonNull(headerName, "headerName");
        if (headerName.isBlank()) {
            throw new IllegalArgumentException("headerName must not be blank");
        }
        return request -> request.header(headerName)
                .map(String::strip)
                .filter(v -> !v.isEmpty())
                .map(v -> "api-key:" + Digests.sha256Base64Url(v));
    }

    /**
     * The same principal for every request: for a service with a single caller, or a
     * public endpoint where every client shares one key space.
     *
     * @param principal the scope for every request
     * @return a resolver that returns the same principal for every request
     * @throws IllegalArgumentException if {@code principal} is empty
     */
    static PrincipalResolver fixed(String principal) {
        Objects.requireNonNull(principal, "principal");
        if (principal.isEmpty()) {
            throw new IllegalArgumentException("principal must not be empty");
        }
        Optional<String> result = Optional.of(principal);
        return request -> result;
    }
}
