package dev.idem.http;

import dev.idem.engine.CallOptions;
import dev.idem.engine.CanonicalJson;
import dev.idem.engine.IdempotencyEngine;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The HTTP idempotency contract, configured once and shared by every request: which
 * methods and routes it covers, how the caller is identified, what the fingerprint leaves
 * out, which responses are stored and which of their headers are replayed. Immutable and
 * thread-safe; install it with {@link IdempotentHttpHandler} (JDK server) or
 * {@link IdempotencyServletFilter} (Jakarta Servlet).
 *
 * <p>For a covered request with an {@code Idempotency-Key}: the key is scoped by the
 * principal and by method and route, the request is fingerprinted (method, path and query,
 * and the RFC 8785 canonical body for JSON, the raw bytes otherwise), and the handler runs
 * at most once per key through the engine. Its response is buffered, stored when the
 * {@link ResponseStoragePolicy} says so, and replayed byte for byte to every retry.
 *
 * <p>The caller's budget: a covered request may carry {@value #REQUEST_TIMEOUT} (whole
 * milliseconds, or a number with a grpc-timeout unit: {@link dev.idem.api.RequestTimeoutHeader}).
 * Its deadline is counted from when the headers are read and passed to the engine with the
 * request's {@link CallOptions}: a malformed value is a 400 ({@code invalid-request-timeout}); a
 * budget spent before the key is claimed (zero, or used up reading the body) a 504
 * ({@code deadline-exceeded}) with nothing stored; a duplicate waiting for an in-progress key (an
 * {@link dev.idem.engine.InProgressPolicy#waitUpTo} policy) answers 409 with {@code Retry-After}
 * by the deadline; the handler finds the deadline in its
 * {@link dev.idem.engine.ExecutionContext#deadline()} and, on a blocking server, bound to its
 * thread for idem-client; a handler still running at the deadline runs to its end and its response
 * is stored.
 */
public final class HttpIdempotency {
    /** The request header carrying the client's key. */
    public static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /**
     * The request header carrying the time the caller still waits, {@value}; see
     * {@link dev.idem.api.RequestTimeoutHeader} for its format.
     */
    public static final String REQUEST_TIMEOUT = dev.idem.api.RequestTimeoutHeader.NAME;
    /**
     * gRPC's deadline header, {@value}: what gRPC-Web and HTTP/JSON transcoding gateways (Envoy's
     * grpc_json_transcoder, grpc-gateway) pass on; name it in {@link Builder#deadlineHeaders}.
     */
    public static final String GRPC_TIMEOUT = "grpc-timeout";
    /**
     * Envoy's deadline header, {@value}: the time Envoy waits for the upstream's answer, in whole
     * milliseconds; name it in {@link Builder#deadlineHeaders} behind an Envoy proxy or mesh.
     */
    public static final String ENVOY_EXPECTED_TIMEOUT = "x-envoy-expected-rq-timeout-ms";
    /** Response header: {@code stored} on the first response whose outcome was stored, {@code replayed} on replays. */
    public static final String IDEMPOTENCY_STATUS = "Idempotency-Status";
    /** Response header set to {@code true} on replays. */
    public static final String IDEMPOTENT_REPLAYED = "Idempotent-Replayed";
    /**
     * The request attribute (servlet) or exchange attribute (JDK server) under which the
     * handler finds the {@link dev.idem.engine.ExecutionContext} of the running execution, for
     * its fencing token or a downstream key.
     */
    public static final String CONTEXT_ATTRIBUTE = "dev.idem.engine.ExecutionContext";
    /** The prefix of every problem {@code type} this module answers with. */
    public static final String PROBLEM_TYPE_PREFIX = "https://idem.dev/problems/";

    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");
    private static final Set<String> UNSTORABLE_HEADERS = Set.of("content-length", "transfer-encoding",
            "connection", "keep-alive", "upgrade", "trailer", "te", "proxy-connection", "set-cookie", "date",
            "idempotency-status", "idempotent-replayed");
    private static final List<String> DEFAULT_HEADERS = List.of("Content-Type", "Content-Language",
            "Content-Encoding", "Content-Disposition", "Location", "ETag", "Last-Modified", "Cache-Control", "Link",
            "Vary");

    private final IdempotencyEngine engine;
    private final Set<String> methods;
    private final RouteResolver routes;
    private final PrincipalResolver principals;
    private final Predicate<String> keyRequired;
    private final List<String> excluded;
    private final Set<String> storedHeaders;
    private final ResponseStoragePolicy storagePolicy;
    private final int maxBodyBytes;
    private final Duration storeRetryAfter;
    private final CallOptions callOptions;
    private final HandlerExecution execution;
    private final ResponseFilter responseFilter;
    private final List<String> deadlineHeaders;

    private HttpIdempotency(Builder b) {
        this.deadlineHeaders = List.copyOf(b.deadlineHeaders);
        this.engine = b.engine;
        this.methods = Set.copyOf(b.methods);
        this.routes = b.routes;
        this.principals = b.principals;
        this.keyRequired = b.keyRequired;
        this.excluded = List.copyOf(b.excluded);
        this.storedHeaders = Set.copyOf(b.storedHeaders);
        this.storagePolicy = b.storagePolicy;
        this.maxBodyBytes = b.maxBodyBytes;
        this.storeRetryAfter = b.storeRetryAfter;
        this.responseFilter = b.responseFilter;
        this.callOptions = b.callOptions;
        this.execution = b.execution != null ? b.execution : HandlerExecution.engine(b.engine);
    }

    /**
     * A builder; only the engine is required.
     *
     * @param engine the engine that runs handlers
     * @return this builder
     */
    public static Builder builder(IdempotencyEngine engine) {
        return new Builder(engine);
    }

    /**
     * The engine that runs handlers.
     *
     * @return the engine that runs handlers
     */
    public IdempotencyEngine engine() {
        return engine;
    }

    /**
     * The covered methods (default POST and PATCH).
     *
     * @return the covered methods (default POST and PATCH)
     */
    public Set<String> methods() {
        return methods;
    }

    /**
     * Maps requests to routes.
     *
     * @return the route resolver
     */
    public RouteResolver routes() {
        return routes;
    }

    /**
     * Names the caller.
     *
     * @return the principal resolver
     */
    public PrincipalResolver principals() {
        return principals;
    }

    /**
     * Whether a request to {@code route} without a key is refused with 400 (otherwise passed through).
     *
     * @param route the operation name
     * @return whether a request to {@code route} without a key is refused with 400 (otherwise passed through)
     */
    public boolean keyRequired(String route) {
        return keyRequired.test(route);
    }

    /**
     * JSON Pointers left out of the body's fingerprint.
     *
     * @return JSON Pointers left out of the body's fingerprint
     */
    public List<String> excludedFromFingerprint() {
        return excluded;
    }

    /**
     * Response headers stored and replayed, lower case.
     *
     * @return response headers stored and replayed, lower case
     */
    public Set<String> storedHeaders() {
        return storedHeaders;
    }

    /**
     * Which responses are stored.
     *
     * @return which responses are stored
     */
    public ResponseStoragePolicy storagePolicy() {
        return storagePolicy;
    }

    /**
     * The largest request body accepted on a covered request; larger ones get 413.
     *
     * @return the largest request body accepted on a covered request
     */
    public int maxBodyBytes() {
        return maxBodyBytes;
    }

    /**
     * The {@code Retry-After} sent with 503 when the store is unavailable.
     *
     * @return the {@code Retry-After} sent with 503 when the store is unavailable
     */
    public Duration storeRetryAfter() {
        return storeRetryAfter;
    }

    /**
     * What of a response is stored and how a replay rebuilds it, or null to store it all.
     *
     * @return the response filter, or null
     */
    public ResponseFilter responseFilter() {
        return responseFilter;
    }

    /**
     * The headers read for the caller's budget besides {@value #REQUEST_TIMEOUT} (default none).
     *
     * @return the deadline headers, as configured
     */
    public List<String> deadlineHeaders() {
        return deadlineHeaders;
    }

    /**
     * Per-call options passed to the engine (TTL, lease, in-progress policy; with a
     * {@link #responseFilter()}, the outcome filter that applies it).
     *
     * @return per-call options passed to the engine
     */
    public CallOptions callOptions() {
        return callOptions;
    }

    /**
     * How a covered request's handler is run (default {@link HandlerExecution#engine}).
     *
     * @return how handlers are run
     */
    public HandlerExecution execution() {
        return execution;
    }

    /** Validating builder: each setter checks its argument at once and may be called once. */
    public static final class Builder {
        private final IdempotencyEngine engine;
        private Set<String> methods = new LinkedHashSet<>(List.of("POST", "PATCH"));
        private RouteResolver routes = RouteResolver.path();
        private PrincipalResolver principals = PrincipalResolver.authenticatedUser();
        private Predicate<String> keyRequired = route -> true;
        private final List<String> excluded = new ArrayList<>();
        private Set<String> storedHeaders = lowerCase(DEFAULT_HEADERS);
        private ResponseStoragePolicy storagePolicy = ResponseStoragePolicy.standard();
        private int maxBodyBytes = 1024 * 1024;
        private Duration storeRetryAfter = Duration.ofSeconds(1);
        private CallOptions callOptions = CallOptions.defaults();
        private HandlerExecution execution;
        private ResponseFilter responseFilter;
        private List<String> deadlineHeaders = List.of();
        private final Set<String> set = new HashSet<>();

        private Builder(IdempotencyEngine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
        }

        private void once(String name) {
            if (!set.add(name)) {
                throw new IllegalStateException(name + " was already set");
            }
        }

        /**
         * The methods covered (replaces the default POST, PATCH); matched exactly.
         *
         * @param methods the covered HTTP methods
         * @return this builder
         * @throws IllegalArgumentException if a method is empty, not an HTTP token, or safe
         *     (GET, HEAD, OPTIONS and TRACE always pass through untouched)
         */
        public Builder methods(String... methods) {
            once("methods");
            Set<String> result = new LinkedHashSet<>();
            for (String m : List.of(methods)) {
                Objects.requireNonNull(m, "method");
                if (m.isEmpty() || !m.chars().allMatch(Builder::isTokenChar)) {
                    throw new IllegalArgumentException("method must be an HTTP token but was \"" + m + "\"");
                }
                if (SAFE_METHODS.contains(m.toUpperCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("method " + m + " is safe and always passes through");
                }
                result.add(m);
            }
            if (result.isEmpty()) {
                throw new IllegalArgumentException("methods must name at least one method");
            }
            this.methods = result;
            return this;
        }

        /**
         * How requests map to routes (default: each path is a route).
         *
         * @param routes how requests map to operation names
         * @return this builder
         */
        public Builder routes(RouteResolver routes) {
            once("routes");
            this.routes = Objects.requireNonNull(routes, "routes");
            return this;
        }

        /**
         * How the caller is named (default: the authenticated user).
         *
         * @param principals how requests map to scopes
         * @return this builder
         */
        public Builder principals(PrincipalResolver principals) {
            once("principals");
            this.principals = Objects.requireNonNull(principals, "principals");
            return this;
        }

        /**
         * Which routes require a key (default: all). A covered request without a key is
         * refused with 400 on those routes and passed through untouched on the others.
         *
         * @param routeRequiresKey whether a route refuses requests without a key
         * @return this builder
         */
        public Builder keyRequired(Predicate<String> routeRequiresKey) {
            once("keyRequired");
            this.keyRequired = Objects.requireNonNull(routeRequiresKey, "keyRequired");
            return this;
        }

        /**
         * Leaves these RFC 6901 JSON Pointers out of the fingerprint of JSON bodies (client
         * timestamps, trace ids), on top of the engine's own exclusions.
         *
         * @param pointers JSON Pointers (RFC 6901) of body fields to leave out
         * @return this builder
         * @throws IllegalArgumentException if a pointer is malformed or names the whole document
         */
        public Builder excludeFromFingerprint(String... pointers) {
            once("excludeFromFingerprint");
            List<String> list = List.of(pointers);
            CanonicalJson.canonicalize("{}".getBytes(StandardCharsets.UTF_8), list);
            excluded.addAll(list);
            return this;
        }

        /**
         * The response headers stored and replayed (replaces the default Content-Type,
         * Content-Language, Content-Encoding, Content-Disposition, Location, ETag,
         * Last-Modified, Cache-Control, Link, Vary); case-insensitive. Other headers go out on
         * the first response only.
         *
         * @param names header names, case-insensitive
         * @return this builder
         * @throws IllegalArgumentException for hop-by-hop or per-response headers
         *     (Content-Length, Transfer-Encoding, Connection, Set-Cookie, Date, ...)
         */
        public Builder storedHeaders(String... names) {
            once("storedHeaders");
            List<String> list = List.of(names);
            for (String name : list) {
                if (name.isEmpty() || !name.chars().allMatch(Builder::isTokenChar)) {
                    throw new IllegalArgumentException("header name must be an HTTP token but was \"" + name + "\"");
                }
                if (UNSTORABLE_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("header " + name + " is per response and cannot be stored");
                }
            }
            this.storedHeaders = lowerCase(list);
            return this;
        }

        /**
         * Which responses are stored (default {@link ResponseStoragePolicy#standard()}).
         *
         * @param policy which responses are stored
         * @return this builder
         */
        public Builder storagePolicy(ResponseStoragePolicy policy) {
            once("storagePolicy");
            this.storagePolicy = Objects.requireNonNull(policy, "storagePolicy");
            return this;
        }

        /**
         * The largest body of a covered request (default 1 MiB); a larger one gets 413 and
         * is never passed to the handler.
         *
         * @param maxBodyBytes the largest request body accepted
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder maxBodyBytes(int maxBodyBytes) {
            once("maxBodyBytes");
            if (maxBodyBytes < 1) {
                throw new IllegalArgumentException("maxBodyBytes must be positive but was " + maxBodyBytes);
            }
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /**
         * The {@code Retry-After} of a 503 sent when the store is unavailable (default 1 s;
         * rounded up to whole seconds).
         *
         * @param retryAfter the {@code Retry-After} sent with 503
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder storeRetryAfter(Duration retryAfter) {
            once("storeRetryAfter");
            Objects.requireNonNull(retryAfter, "storeRetryAfter");
            if (retryAfter.isNegative() || retryAfter.isZero()) {
                throw new IllegalArgumentException("storeRetryAfter must be positive but was " + retryAfter);
            }
            this.storeRetryAfter = retryAfter;
            return this;
        }

        /**
         * Per-call engine options for every covered request (TTL, lease, in-progress policy). A
         * request's deadline comes from its {@value HttpIdempotency#REQUEST_TIMEOUT} header, not from here.
         *
         * @param options per-call overrides
         * @return this builder
         * @throws IllegalArgumentException if the options carry a deadline (it would be one fixed
         *     instant for every request)
         */
        public Builder callOptions(CallOptions options) {
            once("callOptions");
            Objects.requireNonNull(options, "callOptions");
            if (options.deadline() != null) {
                throw new IllegalArgumentException("callOptions must not carry a deadline: a deadline belongs to"
                        + " one call, and each request gets its own from its " + REQUEST_TIMEOUT + " header");
            }
            this.callOptions = options;
            return this;
        }

        /**
         * Headers that carry the caller's deadline besides {@value HttpIdempotency#REQUEST_TIMEOUT}
         * (default none): the shortest budget of all those a request carries wins, and a repeated
         * or malformed one is answered as a malformed {@value HttpIdempotency#REQUEST_TIMEOUT} is
         * (400 {@code invalid-request-timeout}). {@value HttpIdempotency#GRPC_TIMEOUT} is read as gRPC
         * writes it (one to eight digits and a unit), for requests from gRPC-Web clients and
         * transcoding gateways; {@value HttpIdempotency#ENVOY_EXPECTED_TIMEOUT} as whole
         * milliseconds, behind Envoy; any other name in {@value HttpIdempotency#REQUEST_TIMEOUT}'s
         * format. Name only headers that what stands in front of the server sets or checks.
         *
         * @param names header names, case-insensitive
         * @return this builder
         * @throws IllegalArgumentException if a name is not an HTTP token or is {@value HttpIdempotency#REQUEST_TIMEOUT}
         */
        public Builder deadlineHeaders(String... names) {
            once("deadlineHeaders");
            Set<String> result = new LinkedHashSet<>();
            for (String name : List.of(names)) {
                if (name.isEmpty() || !name.chars().allMatch(Builder::isTokenChar)) {
                    throw new IllegalArgumentException("header name must be an HTTP token but was \"" + name + "\"");
                }
                if (name.equalsIgnoreCase(REQUEST_TIMEOUT)) {
                    throw new IllegalArgumentException(REQUEST_TIMEOUT + " is always read; name only other headers");
                }
                result.add(name.toLowerCase(Locale.ROOT));
            }
            this.deadlineHeaders = List.copyOf(result);
            return this;
        }

        /**
         * How a covered request's handler is run (default: {@link HandlerExecution#engine} over
         * this builder's engine). For integrations: a transaction around the handler, an
         * observation named after the route.
         *
         * @param execution how handlers are run
         * @return this builder
         */
        public Builder execution(HandlerExecution execution) {
            once("execution");
            this.execution = Objects.requireNonNull(execution, "execution");
            return this;
        }

        /**
         * What of each response is stored and how a replay rebuilds it (default: all of it, within
         * the stored-header allow-list); applied before the engine encrypts the outcome.
         *
         * @param filter the filter, for example {@link ResponseFilter#removingJsonFields}
         * @return this builder
         */
        public Builder responseFilter(ResponseFilter filter) {
            once("responseFilter");
            this.responseFilter = Objects.requireNonNull(filter, "responseFilter");
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @return the configuration
         * @throws IllegalArgumentException if both a {@link #responseFilter} and {@link #callOptions}
         *     with an outcome filter are set
         */
        public HttpIdempotency build() {
            if (responseFilter != null && callOptions.outcomeFilter() != null) {
                throw new IllegalArgumentException("responseFilter and callOptions' outcomeFilter both decide what is"
                        + " stored; set one of them");
            }
            return new HttpIdempotency(this);
        }

        private static Set<String> lowerCase(List<String> names) {
            Set<String> out = new LinkedHashSet<>();
            for (String n : names) {
                out.add(Objects.requireNonNull(n, "header name").toLowerCase(Locale.ROOT));
            }
            return out;
        }

        private static boolean isTokenChar(int c) {
            return c > 0x20 && c < 0x7F && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
        }
    }
}
