-- idem idempotency records, MySQL 8 / MariaDB 10.6+ (InnoDB).
-- Instants are epoch milliseconds on the database server's clock.
-- Scope, operation and key are UTF-8 bytes in VARBINARY columns: no case-insensitive or
-- space-padding collation can make two different keys collide.
CREATE TABLE IF NOT EXISTS idem_record (
    scope        VARBINARY(600)  NOT NULL,
    operation    VARBINARY(600)  NOT NULL,
    idem_key     VARBINARY(255)  NOT NULL,
    state        CHAR(1)         NOT NULL,
    fingerprint  VARBINARY(1024) NOT NULL,
    token        BIGINT          NOT NULL,
    attempt      INT             NOT NULL,
    lease_until  BIGINT          NULL,
    expires_at   BIGINT          NOT NULL,
    outcome      LONGBLOB        NULL,
    PRIMARY KEY (scope, operation, idem_key),
    KEY idem_record_expires_idx (expires_at)
) ENGINE = InnoDB;
