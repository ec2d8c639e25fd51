-- idem outbox, MySQL 8 / MariaDB 10.6+ (InnoDB).
-- Instants are epoch milliseconds on the clock of the application (writer and relay).
-- state: P(ending), S(ent), F(ailed: dead, its dead letter not yet handed to the callback), D(ead letter).
-- Binary collations: no two distinct keys compare equal.
CREATE TABLE IF NOT EXISTS idem_outbox (
    id             BIGINT        NOT NULL AUTO_INCREMENT,
    event_id       VARCHAR(255)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    topic          VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    aggregate_key  VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    payload        LONGBLOB      NOT NULL,
    state          CHAR(1)       CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    attempts       INT           NOT NULL,
    available_at   BIGINT        NOT NULL,
    created_at     BIGINT        NOT NULL,
    sent_at        BIGINT        NULL,
    last_error     VARCHAR(1000) CHARACTER SET utf8mb4 NULL,
    PRIMARY KEY (id),
    UNIQUE KEY idem_outbox_event_id_key (event_id),
    KEY idem_outbox_pending_idx (state, available_at, id),
    KEY idem_outbox_key_idx (aggregate_key, state, id),
    KEY idem_outbox_sent_idx (state, sent_at)
) ENGINE = InnoDB;
