package dev.idem.spring;

import java.util.Optional;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/** The authenticated (not anonymous) user of Spring Security's context; loaded only when Spring Security is. */
final class SecurityContextPrincipal {
    private static final AuthenticationTrustResolver TRUST = new AuthenticationTrustResolverImpl();

    private SecurityContextPrincipal() {
    }

    static Optional<String> current() {
        Authentication auth = SecurityContextHolder.getContext().getAuthentication();
        if (auth == null || !auth.isAuthenticated() || TRUST.isAnonymous(auth)) {
            return Optional.empty();
        }
        return Optional.ofNullable(auth.getName()).filter(n -> !n.isEmpty());
    }
}
