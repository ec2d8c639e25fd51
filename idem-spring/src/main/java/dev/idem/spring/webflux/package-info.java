/**
 * idem for Spring WebFlux: {@link dev.idem.spring.webflux.IdempotencyWebFilter}, the
 * Idempotency-Key contract of the servlet filter as a {@code WebFilter} on any WebFlux server
 * (Reactor Netty, or a servlet container through WebFlux), and
 * {@link dev.idem.spring.webflux.SpringWebFluxRoutes}, Spring path patterns named after the
 * pattern WebFlux matched. The caller is the reactive principal ({@code exchange.getPrincipal()},
 * which Spring Security's WebFlux chain sets); nothing blocks.
 *
 * <p>Nullness: every parameter and return value is non-null unless its Javadoc says otherwise.
 */
package dev.idem.spring.webflux;
