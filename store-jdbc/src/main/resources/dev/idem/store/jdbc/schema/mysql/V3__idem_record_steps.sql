-- idem SPI v2, MySQL 8 / MariaDB 10.6+ (after V2): when the record was first claimed, the
-- step journal of multi-step work, and the claim and lease-extension procedures that keep
-- both (and accept a test clock). Runs on a populated table; rows written before it report
-- their read time as their creation time.
--
-- The V2 procedures stay in place, so nodes of the previous version keep working during a
-- rolling upgrade; drop them once every node runs this version. Same rules as V2: each
-- procedure is one statement without DELIMITER, ending with "END;" at the start of a line.
-- MySQL has no ADD COLUMN IF NOT EXISTS; createTableIfNotExists() checks information_schema first.

ALTER TABLE idem_record ADD COLUMN created_at BIGINT NULL;

ALTER TABLE idem_record ADD COLUMN journal LONGBLOB NULL;

CREATE PROCEDURE idem_record_claim_v2(
    IN p_scope     VARBINARY(600),
    IN p_operation VARBINARY(600),
    IN p_key       VARBINARY(255),
    IN p_fp        VARBINARY(1024),
    IN p_token     BIGINT,
    IN p_lease_ms  BIGINT,
    IN p_life_ms   BIGINT,
    IN p_now       BIGINT)
    MODIFIES SQL DATA
    SQL SECURITY INVOKER
BEGIN
    DECLARE v_now     BIGINT;
    DECLARE v_status  CHAR(1) DEFAULT 'E';
    DECLARE v_state   CHAR(1);
    DECLARE v_fp      VARBINARY(1024);
    DECLARE v_token   BIGINT;
    DECLARE v_attempt INT;
    DECLARE v_lease   BIGINT;
    DECLARE v_expires BIGINT;
    DECLARE v_outcome LONGBLOB;
    DECLARE v_created BIGINT;
    DECLARE v_journal LONGBLOB;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;

    START TRANSACTION;
    -- The database clock, read once (epoch milliseconds, independent of the session time
    -- zone), unless the caller passes a test clock.
    SET v_now = COALESCE(p_now, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000);
    -- Either inserts the claim, marked 'N' ("inserted by this call"; the mark never commits),
    -- or takes an exclusive lock on the existing row without changing it (see V2).
    INSERT INTO idem_record (scope, operation, idem_key, state, fingerprint, token, attempt, lease_until,
                             expires_at, outcome, created_at, journal)
    VALUES (p_scope, p_operation, p_key, 'N', p_fp, p_token, 1, v_now + p_lease_ms, v_now + p_life_ms, NULL,
            v_now, NULL)
    ON DUPLICATE KEY UPDATE state = state;
    SELECT state, fingerprint, token, attempt, lease_until, expires_at, outcome, created_at, journal
      INTO v_state, v_fp, v_token, v_attempt, v_lease, v_expires, v_outcome, v_created, v_journal
      FROM idem_record
     WHERE scope = p_scope AND operation = p_operation AND idem_key = p_key
       FOR UPDATE;
    IF v_state = 'N' THEN
        SET v_status = 'A';
        UPDATE idem_record SET state = 'I'
         WHERE scope = p_scope AND operation = p_operation AND idem_key = p_key;
    ELSEIF v_expires <= v_now OR v_state = 'R'
            OR (v_state = 'I' AND v_lease <= v_now AND v_fp = p_fp) THEN
        -- Expired: a new life (attempt 1, created now, no journal). Released or lapsed: the
        -- next attempt, same creation time, and the journal only if it is the same request.
        SET v_status = IF(v_expires > v_now AND v_state = 'I', 'T', 'A');
        IF v_expires <= v_now THEN
            SET v_attempt = 1;
            SET v_created = v_now;
            SET v_journal = NULL;
        ELSE
            SET v_attempt = v_attempt + 1;
            SET v_created = COALESCE(v_created, v_now);
            IF v_fp <> p_fp THEN
                SET v_journal = NULL;
            END IF;
        END IF;
        UPDATE idem_record
           SET state = 'I', fingerprint = p_fp, token = p_token, attempt = v_attempt,
               lease_until = v_now + p_lease_ms, expires_at = v_now + p_life_ms, outcome = NULL,
               created_at = v_created, journal = v_journal
         WHERE scope = p_scope AND operation = p_operation AND idem_key = p_key;
    END IF;
    COMMIT;

    -- One row: the clock, the status (A acquired, T taken over, E existing) and the record
    -- as it now stands (for E the existing one, unchanged, with its outcome).
    IF v_status = 'E' THEN
        SELECT v_now AS now_ms, v_status AS status, v_state AS state, v_fp AS fingerprint, v_token AS token,
               v_attempt AS attempt, v_lease AS lease_until, v_expires AS expires_at, v_outcome AS outcome,
               v_created AS created_at, v_journal AS journal;
    ELSE
        SELECT v_now AS now_ms, v_status AS status, 'I' AS state, p_fp AS fingerprint, p_token AS token,
               v_attempt AS attempt, v_now + p_lease_ms AS lease_until, v_now + p_life_ms AS expires_at,
               NULL AS outcome, v_created AS created_at, v_journal AS journal;
    END IF;
END;

CREATE PROCEDURE idem_record_extend_v2(
    IN p_scope     VARBINARY(600),
    IN p_operation VARBINARY(600),
    IN p_key       VARBINARY(255),
    IN p_token     BIGINT,
    IN p_lease_ms  BIGINT,
    IN p_now       BIGINT)
    MODIFIES SQL DATA
    SQL SECURITY INVOKER
BEGIN
    DECLARE v_now      BIGINT;
    DECLARE v_deadline BIGINT;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;

    START TRANSACTION;
    SET v_now = COALESCE(p_now, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000);
    -- Fenced by the token; the lease deadline itself is not checked (a lapsed holder that was
    -- not taken over may extend). The journal and creation time stay.
    UPDATE idem_record
       SET lease_until = v_now + p_lease_ms, expires_at = GREATEST(expires_at, v_now + p_lease_ms)
     WHERE scope = p_scope AND operation = p_operation AND idem_key = p_key
       AND token = p_token AND state = 'I' AND expires_at > v_now;
    -- Whether it matched, read back inside the transaction (the affected-row count depends on
    -- the client's CLIENT_FOUND_ROWS flag, so it is not used).
    SET v_deadline = (SELECT lease_until FROM idem_record
                       WHERE scope = p_scope AND operation = p_operation AND idem_key = p_key
                         AND token = p_token AND state = 'I' AND lease_until = v_now + p_lease_ms);
    COMMIT;
    SELECT v_now AS now_ms, v_deadline AS lease_until;
END;
