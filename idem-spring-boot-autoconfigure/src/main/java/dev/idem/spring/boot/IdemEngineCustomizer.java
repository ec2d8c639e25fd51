package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;

/**
 * Adjusts the auto-configured engine's builder after the {@code idem.*} settings are applied
 * and before it is built, for what properties do not cover: a {@link
 * dev.idem.engine.protection.KeyProvider} backed by a secret manager or a KMS, for example
 * {@code builder -> builder.encryptOutcomes(vaultKeys)}. Every bean of this type is applied, in
 * order; a builder setting made twice (by a customizer and by {@code idem.protection.*}) fails
 * startup. Not applied when the application defines its own {@link IdempotencyEngine}.
 */
@FunctionalInterface
public interface IdemEngineCustomizer {
    /**
     * Adjusts the builder.
     *
     * @param builder the engine's builder, with the {@code idem.*} settings applied
     */
    void customize(IdempotencyEngineBuilder builder);
}
