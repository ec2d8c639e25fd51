package dev.idem.spring.boot;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.engine.IdempotencyEngine;
import dev.idem.spring.SpringTransactionalIdempotency;
import dev.idem.spring.TransactionViews;
import dev.idem.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idem.store.dynamodb.DynamoDbTables;
import dev.idem.store.jdbc.JdbcDialect;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import dev.idem.store.redis.RedisIdempotencyStore;
import dev.idem.store.redis.RedisScriptClient;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.PlatformTransactionManager;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** One configuration per backend, each active only when its classes are present. */
final class StoreConfigurations {
    private StoreConfigurations() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({JdbcIdempotencyStore.class, DataSource.class})
    @EnableConfigurationProperties(JdbcStoreProperties.class)
    static class Jdbc {
        @Bean
        StoreCandidate idemJdbcStoreCandidate(ObjectProvider<DataSource> dataSources, JdbcStoreProperties p) {
            return new StoreCandidate() {
                @Override
                public IdemProperties.StoreKind kind() {
                    return IdemProperties.StoreKind.JDBC;
                }

                @Override
                public Optional<IdempotencyStore> create() {
                    DataSource ds = dataSources.getIfUnique();
                    if (ds == null) {
                        return Optional.empty();
                    }
                    JdbcIdempotencyStore.Builder b = JdbcIdempotencyStore.builder(ds).tableName(p.table());
                    if (p.schema() != null) {
                        b.schema(p.schema());
                    }
                    if (p.dialect() != null) {
                        b.dialect(JdbcDialect.fromSetting(p.dialect()));
                    }
                    if (p.queryTimeout() != null) {
                        b.queryTimeout(p.queryTimeout());
                    }
                    if (p.maxOutcomeBytes() != null) {
                        b.maxOutcomeBytes(p.maxOutcomeBytes());
                    }
                    JdbcIdempotencyStore store = b.build();
                    if (p.createTable()) {
                        store.createTableIfNotExists();
                    }
                    return Optional.of(store);
                }
            };
        }
    }

    /**
     * The Redis store over the client the application already has, the first of: its own
     * {@link RedisScriptClient} bean, a Jedis {@code UnifiedJedis} bean, a Lettuce
     * {@code RedisClient} or {@code RedisClusterClient} bean, Spring Data Redis'
     * {@code RedisConnectionFactory} (Lettuce or Jedis underneath). Each source is a bean of its
     * own configuration, active only when its classes are present.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisIdempotencyStore.class)
    @Import({RedisClients.Jedis.class, RedisClients.Lettuce.class, RedisClients.SpringData.class})
    @EnableConfigurationProperties(RedisStoreProperties.class)
    static class Redis {
        @Bean
        StoreCandidate idemRedisStoreCandidate(ObjectProvider<RedisScriptClient> own,
                ObjectProvider<RedisClients.Source> sources, RedisStoreProperties p) {
            return new StoreCandidate() {
                @Override
                public IdemProperties.StoreKind kind() {
                    return IdemProperties.StoreKind.REDIS;
                }

                @Override
                public Optional<IdempotencyStore> create() {
                    RedisScriptClient scripts = own.getIfUnique();
                    if (scripts == null) {
                        scripts = sources.orderedStream().map(RedisClients.Source::scriptClient)
                                .flatMap(Optional::stream).findFirst().orElse(null);
                    }
                    if (scripts == null) {
                        return Optional.empty();
                    }
                    // The client is the application's: the script client never closes it.
                    RedisIdempotencyStore.Builder b = RedisIdempotencyStore.builder(scripts).keyPrefix(p.prefix());
                    if (p.maxOutcomeBytes() != null) {
                        b.maxOutcomeBytes(p.maxOutcomeBytes());
                    }
                    return Optional.of(b.build());
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({DynamoDbIdempotencyStore.class, DynamoDbClient.class})
    @EnableConfigurationProperties(DynamoDbStoreProperties.class)
    static class DynamoDb {
        @Bean
        StoreCandidate idemDynamoDbStoreCandidate(ObjectProvider<DynamoDbClient> clients, DynamoDbStoreProperties p) {
            return new StoreCandidate() {
                @Override
                public IdemProperties.StoreKind kind() {
                    return IdemProperties.StoreKind.DYNAMODB;
                }

                @Override
                public Optional<IdempotencyStore> create() {
                    DynamoDbClient client = clients.getIfUnique();
                    if (client == null) {
                        return Optional.empty();
                    }
                    if (p.createTable()) {
                        DynamoDbTables.createTable(client, p.table());
                    }
                    DynamoDbIdempotencyStore.Builder b = DynamoDbIdempotencyStore.builder().client(client)
                            .tableName(p.table());
                    if (p.maxOutcomeBytes() != null) {
                        b.maxOutcomeBytes(p.maxOutcomeBytes());
                    }
                    return Optional.of(b.build());
                }
            };
        }
    }

    /** The JDBC transactional mode inside Spring-managed transactions. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({JdbcIdempotencyStore.class, DataSource.class, PlatformTransactionManager.class,
            org.springframework.jdbc.datasource.DataSourceUtils.class})
    static class JdbcTransactions {
        @Bean
        static TransactionViews idemTransactionViews() {
            return new TransactionViews();
        }

        @Bean
        @ConditionalOnMissingBean
        SpringTransactionalIdempotency springTransactionalIdempotency(IdempotencyEngine engine,
                IdempotencyStore store, ObjectProvider<DataSource> dataSources,
                ObjectProvider<PlatformTransactionManager> transactionManagers, TransactionViews views) {
            // Created for every application with these classes; it refuses calls (with a
            // message saying why) when the store is not JDBC or a piece is missing.
            return new SpringTransactionalIdempotency(engine,
                    store instanceof JdbcIdempotencyStore ? (JdbcIdempotencyStore) store : null,
                    dataSources.getIfUnique(), transactionManagers.getIfUnique(), views);
        }
    }
}
