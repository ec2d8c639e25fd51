package dev.idem.quarkus.runtime;

import dev.idem.api.store.IdempotencyStore;
import dev.idem.quarkus.IdemConfig;
import dev.idem.store.jdbc.JdbcDialect;
import dev.idem.store.jdbc.JdbcIdempotencyStore;
import io.quarkus.agroal.runtime.AgroalDataSourceUtil;
import io.quarkus.datasource.common.runtime.DataSourceUtil;
import jakarta.inject.Singleton;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The JDBC store over the application's Agroal datasource ({@code idem.store.jdbc.datasource},
 * else the default one), when it is active. Wired by the extension when idem-store-jdbc and
 * quarkus-agroal are present; not for applications.
 */
@Singleton
public class JdbcStoreCandidate implements StoreCandidate {
    /** Created by CDI. */
    public JdbcStoreCandidate() {
    }

    @Override
    public IdemConfig.StoreKind kind() {
        return IdemConfig.StoreKind.JDBC;
    }

    @Override
    public Optional<IdempotencyStore> create(IdemConfig config) {
        IdemConfig.Jdbc p = config.store().jdbc();
        String name = p.datasource().orElse(DataSourceUtil.DEFAULT_DATASOURCE_NAME);
        Optional<? extends DataSource> dataSource = AgroalDataSourceUtil.dataSourceIfActive(name);
        if (dataSource.isEmpty()) {
            return Optional.empty();
        }
        JdbcIdempotencyStore.Builder b = JdbcIdempotencyStore.builder(dataSource.get()).tableName(p.table());
        p.schema().ifPresent(b::schema);
        p.dialect().ifPresent(d -> b.dialect(JdbcDialect.fromSetting(d)));
        p.queryTimeout().ifPresent(b::queryTimeout);
        p.maxOutcomeBytes().ifPresent(b::maxOutcomeBytes);
        JdbcIdempotencyStore store = b.build();
        if (p.createTable()) {
            store.createTableIfNotExists();
        }
        return Optional.of(store);
    }
}
