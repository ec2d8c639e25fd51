package dev.idem.spring;

import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import reactor.core.publisher.Mono;

/** Spring Security's reactive user; loaded only with Spring Security and Reactor. */
final class ReactiveSecurityUser {
    private ReactiveSecurityUser() {
    }

    /** The authenticated, not anonymous, user of the subscriber's security context, if any. */
    static Mono<String> name() {
        return ReactiveSecurityContextHolder.getContext()
                .flatMap(context -> Mono.justOrEmpty(SecurityContextPrincipal.name(context.getAuthentication())));
    }
}
