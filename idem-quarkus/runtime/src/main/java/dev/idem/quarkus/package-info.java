/**
 * idem for Quarkus: the {@code idem.*} configuration ({@link dev.idem.quarkus.IdemConfig}) and
 * the beans an application may add ({@link dev.idem.quarkus.StoreDecorator}). The extension
 * produces an {@code IdempotencyStore}, an {@code IdempotencyEngine}, a {@code PrincipalResolver}
 * and an {@code HttpIdempotency}, each replaced by an application bean of the same type, and
 * covers {@code @Idempotent} Quarkus REST resource methods.
 *
 * <p>Nullness: every parameter and return value in this package is non-null unless its
 * Javadoc says otherwise.
 */
package dev.idem.quarkus;
