-- idem idempotency records, H2 2.x.
-- Instants are epoch milliseconds on the clock of the JVM running the database.
CREATE TABLE IF NOT EXISTS idem_record (
    scope        VARCHAR(200)    NOT NULL,
    operation    VARCHAR(200)    NOT NULL,
    idem_key     VARCHAR(255)    NOT NULL,
    state        CHAR(1)         NOT NULL,
    fingerprint  VARBINARY(1024) NOT NULL,
    token        BIGINT          NOT NULL,
    attempt      INTEGER         NOT NULL,
    lease_until  BIGINT,
    expires_at   BIGINT          NOT NULL,
    outcome      BLOB,
    PRIMARY KEY (scope, operation, idem_key)
);
CREATE INDEX IF NOT EXISTS idem_record_expires_idx ON idem_record (expires_at);
