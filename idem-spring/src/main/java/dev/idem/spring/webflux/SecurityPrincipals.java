package dev.idem.spring.webflux;

import java.security.Principal;
import java.util.Optional;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import reactor.core.publisher.Mono;

/** Spring Security's view of a principal: anonymous or unauthenticated ones name nobody. Loaded only with Spring Security. */
final class SecurityPrincipals {
    private static final AuthenticationTrustResolver TRUST = new AuthenticationTrustResolverImpl();

    private SecurityPrincipals() {
    }

    /** The authenticated, not anonymous, user of the subscriber's Spring Security context, if any. */
    static Mono<String> contextUser() {
        return ReactiveSecurityContextHolder.getContext()
                .flatMap(context -> Mono.justOrEmpty(context.getAuthentication()))
                .flatMap(auth -> Mono.justOrEmpty(name(auth)));
    }

    /** The name of {@code principal}, empty if it is an anonymous or unauthenticated {@link Authentication}. */
    static Optional<String> name(Principal principal) {
        if (principal instanceof Authentication auth && (!auth.isAuthenticated() || TRUST.isAnonymous(auth))) {
            return Optional.empty();
        }
        return Optional.ofNullable(principal.getName()).filter(n -> !n.isEmpty());
    }
}
