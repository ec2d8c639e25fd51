package dev.idem.http;

import dev.idem.api.CallerScope;
import java.util.Objects;
import java.util.Optional;

/**
 * Names whose keys a request uses: the scope of its idempotency key. Two principals never
 * see each other's outcomes even with the same key. Must be derived from authentication
 * (the authenticated user, a verified API key), never from the request body. An empty
 * result means "unknown caller": the request is refused with 401 and nothing is stored.
 *
 * <p>What {@link #resolve} returns is a name; the adapters key records by {@link #scope}, the
 * name in {@link CallerScope}'s one encoding, under which no name can spell another caller's
 * scope (a login named {@code api-key:...} never reaches an API key's records, nor one named
 * {@code sha256:...} a long name's). {@link #apiKeyHeader} and {@link #orElse} give their scopes
 * directly; a resolver written as a lambda names principals, and its names are encoded. A resolver
 * that hands on another resolver's answer keeps {@link #apiKeyHeader}'s scope only by delegating
 * {@link #scope} too (as {@link #orElse} does): its {@code resolve} text is a name like any other.
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
     * The scope of the request's idempotency key: by default {@link #resolve}'s name in
     * {@link CallerScope#of}'s encoding (an empty name counts as none).
     *
     * @param request the incoming request
     * @return the scope, or empty if the caller is not authenticated
     */
    default Optional<String> scope(IncomingRequest request) {
        return resolve(request).filter(name -> !name.isEmpty()).map(CallerScope::of);
    }

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
        PrincipalResolver first = this;
        return new PrincipalResolver() {
            @Override
            public Optional<String> resolve(IncomingRequest request) {
                Optional<String> name = first.resolve(request).filter(n -> !n.isEmpty());
                return name.isPresent() ? name : fallback.resolve(request);
            }

            @Override
            public Optional<String> scope(IncomingRequest request) {
                Optional<String> scope = first.scope(request);
                return scope.isPresent() ? scope : fallback.scope(request);
            }
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
     * The value of an API-key header, as {@link CallerScope#ofApiKey} gives it ({@code api-key:}
     * and its SHA-256), so the secret itself is never stored in the idempotency table. Its
     * {@link #scope} is that text as it is, in a namespace no login name can reach. Verify the key
     * before this filter runs, or behind it; an unknown key only ever scopes its own records.
     *
     * @param headerName the API-key header
     * @return a resolver whose scope is the API key's, {@code api-key:<digest>}
     * @throws IllegalArgumentException if {@code headerName} is blank
     */
    static PrincipalResolver apiKeyHeader(String headerName) {
        Objects.requireNonNull(headerName, "headerName");
        if (headerName.isBlank()) {
            throw new IllegalArgumentException("headerName must not be blank");
        }
        return new PrincipalResolver() {
            @Override
            public Optional<String> resolve(IncomingRequest request) {
                return request.header(headerName).map(String::strip).filter(v -> !v.isEmpty())
                        .map(CallerScope::ofApiKey);
            }

            @Override
            public Optional<String> scope(IncomingRequest request) {
                return resolve(request);
            }
        };
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
