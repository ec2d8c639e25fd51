package dev.idem.spring.boot;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code idem.store.redis.*}: the Redis store over the application's client
 * ({@link StoreConfigurations.Redis}); the names are those store-redis's provider reads.
 *
 * @param prefix The prefix of every key the store writes.
 * @param maxOutcomeBytes The largest outcome stored, in bytes; the store's default when unset.
 */
@ConfigurationProperties(prefix = "idem.store.redis")
record RedisStoreProperties(@DefaultValue("idem:") String prefix, @Nullable Integer maxOutcomeBytes) {
}
