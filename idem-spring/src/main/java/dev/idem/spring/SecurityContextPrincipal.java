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
        return name(SecurityContextHolder.getContext().getAuthentication());
    }

    /** The name of {@code auth} if it is an authenticated, not anonymous, authentication. */
    static Optional<String> name(Authentication auth) {
        if (auth == null || !auth.isAuthenticated() || TRUST.isAnonymous(auth)) {
            return Optional.empty();
        }
        return Optional.ofNullable(auth.getName()).filter(n -> !n.isEmpty());
    }
}
