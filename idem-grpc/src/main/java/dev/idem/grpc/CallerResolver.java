package dev.idem.grpc;

import dev.idem.api.CallerScope;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Names who makes a call: the scope of its idempotency key, so two callers never see each other's
 * answers even with the same key. Must come from authentication (a principal an authentication
 * interceptor put in the call's {@link Context}, an identity a trusted gateway sends in a header,
 * a verified API key), never from the request message. Asked on the call's own thread, with the
 * call's {@link Context} current, after the interceptors in front of this one have run. An empty
 * result means an unknown caller: the call is refused with {@code UNAUTHENTICATED} and nothing is
 * stored.
 *
 * <p>What {@link #resolve} returns is a name; the interceptor keys records by {@link #scope}, the
 * name in {@link CallerScope}'s one encoding (the HTTP adapters' too), under which no name can spell
 * another caller's scope. {@link #apiKeyHeader} and {@link #orElse} give their scopes directly; a
 * resolver of your own that hands on another's answer keeps {@link #apiKeyHeader}'s scope only by
 * delegating {@link #scope} too.
 */
@FunctionalInterface
public interface CallerResolver {
    /**
     * The caller of {@code call}, or empty if it is not authenticated.
     *
     * @param call the incoming call (its attributes, authority and method)
     * @param headers the call's request metadata
     * @return the caller's name, or empty
     */
    Optional<String> resolve(ServerCall<?, ?> call, Metadata headers);

    /**
     * The scope of the call's idempotency key: by default {@link #resolve}'s name in
     * {@link CallerScope#of}'s encoding (an empty name counts as none).
     *
     * @param call the incoming call
     * @param headers the call's request metadata
     * @return the scope, or empty if the caller is not authenticated
     */
    default Optional<String> scope(ServerCall<?, ?> call, Metadata headers) {
        return resolve(call, headers).filter(name -> !name.isEmpty()).map(CallerScope::of);
    }

    /**
     * This resolver's caller, else {@code fallback}'s; an empty name counts as none. Each keeps its
     * own {@link #scope}.
     *
     * @param fallback asked when this resolver names nobody
     * @return the combined resolver
     */
    default CallerResolver orElse(CallerResolver fallback) {
        Objects.requireNonNull(fallback, "fallback");
        CallerResolver first = this;
        return new CallerResolver() {
            @Override
            public Optional<String> resolve(ServerCall<?, ?> call, Metadata headers) {
                Optional<String> name = first.resolve(call, headers).filter(n -> !n.isEmpty());
                return name.isPresent() ? name : fallback.resolve(call, headers);
            }

            @Override
            public Optional<String> scope(ServerCall<?, ?> call, Metadata headers) {
                Optional<String> scope = first.scope(call, headers);
                return scope.isPresent() ? scope : fallback.scope(call, headers);
            }
        };
    }

    /**
     * The value an authentication interceptor put in the call's {@link Context} under {@code key},
     * named by its {@code toString()}.
     *
     * @param key the context key
     * @return the resolver
     */
    static CallerResolver contextKey(Context.Key<?> key) {
        return contextKey(key, Object::toString);
    }

    /**
     * The value an authentication interceptor put in the call's {@link Context} under {@code key},
     * named by {@code name} (which may return null for an unauthenticated value).
     *
     * @param <T> the value's type
     * @param key the context key
     * @param name the caller's name in the value, for example {@code Principal::getName}
     * @return the resolver
     */
    static <T> CallerResolver contextKey(Context.Key<T> key, Function<? super T, String> name) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(name, "name");
        return (call, headers) -> Optional.ofNullable(key.get()).map(name).filter(n -> !n.isEmpty());
    }

    /**
     * The identity a gateway in front of the server authenticated and sends in a request header
     * (for example {@code x-authenticated-user}), taken as it is. Only for a server that nothing
     * but that gateway can reach, and a gateway that removes the header from what clients send.
     *
     * @param headerName the ASCII header name
     * @return the resolver
     * @throws IllegalArgumentException if the name is blank or names a binary header
     */
    static CallerResolver trustedHeader(String headerName) {
        Metadata.Key<String> key = asciiKey(headerName);
        return (call, headers) -> Optional.ofNullable(headers.get(key)).map(String::strip).filter(v -> !v.isEmpty());
    }

    /**
     * The value of an API-key header, as {@link CallerScope#ofApiKey} gives it ({@code api-key:} and
     * its SHA-256), so the secret itself is never stored; its {@link #scope} is that text as it is,
     * in a namespace no caller's name can reach. Verify the key before this interceptor runs; an
     * unknown key only ever scopes its own records.
     *
     * @param headerName the ASCII header name
     * @return the resolver
     * @throws IllegalArgumentException if the name is blank or names a binary header
     */
    static CallerResolver apiKeyHeader(String headerName) {
        Metadata.Key<String> key = asciiKey(headerName);
        return new CallerResolver() {
            @Override
            public Optional<String> resolve(ServerCall<?, ?> call, Metadata headers) {
                return Optional.ofNullable(headers.get(key)).map(String::strip).filter(v -> !v.isEmpty())
                        .map(CallerScope::ofApiKey);
            }

            @Override
            public Optional<String> scope(ServerCall<?, ?> call, Metadata headers) {
                return resolve(call, headers);
            }
        };
    }

    /**
     * The same caller for every call: a service with a single client, or one where every client
     * shares one key space.
     *
     * @param caller the scope of every call
     * @return the resolver
     * @throws IllegalArgumentException if {@code caller} is empty
     */
    static CallerResolver fixed(String caller) {
        Objects.requireNonNull(caller, "caller");
        if (caller.isEmpty()) {
            throw new IllegalArgumentException("caller must not be empty");
        }
        Optional<String> result = Optional.of(caller);
        return (call, headers) -> result;
    }

    private static Metadata.Key<String> asciiKey(String headerName) {
        Objects.requireNonNull(headerName, "headerName");
        if (headerName.isBlank()) {
            throw new IllegalArgumentException("headerName must not be blank");
        }
        if (headerName.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
            throw new IllegalArgumentException("headerName must name an ASCII header, not the binary " + headerName);
        }
        return Metadata.Key.of(headerName, Metadata.ASCII_STRING_MARSHALLER);
    }
}
