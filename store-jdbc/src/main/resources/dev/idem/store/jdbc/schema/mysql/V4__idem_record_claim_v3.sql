-- idem claim v3, MySQL 8 / MariaDB 10.6+ (after V3): the claim of V3 with a short path for the
-- answer most claims get, a duplicate of a completed record (or of one whose lease is live).
-- V3's claim locks the row in a transaction to answer it; this one reads it first without a
-- lock or a transaction and, when it is completed (or held) and live, answers with it at
-- once, so a replay costs one consistent read. Every other case runs V3's transaction as it is.
--
-- The V3 procedures stay in place, so nodes of the previous version keep working during a
-- rolling upgrade; drop claim_v2 once every node runs this version. Same rules as V2: one
-- statement without DELIMITER, ending with "END;" at the start of a line.

CREATE PROCEDURE idem_record_claim_v3(
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
    DECLARE CONTINUE HANDLER FOR NOT FOUND SET v_state = NULL;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;

    -- The database clock, read once (epoch milliseconds, independent of the session time
    -- zone), unless the caller passes a test clock.
    SET v_now = COALESCE(p_now, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000);
    -- A live completed record, or a live lease, is the answer whatever the claim would do: read
    -- it without a lock or a transaction (a consistent read) and answer with it at once. A
    -- completed record changes only once it has expired, and a live lease reported a moment
    -- late is still an answer the claim could have got.
    SELECT state, fingerprint, token, attempt, lease_until, expires_at, outcome, created_at, journal
      INTO v_state, v_fp, v_token, v_attempt, v_lease, v_expires, v_outcome, v_created, v_journal
      FROM idem_record
     WHERE scope = p_scope AND operation = p_operation AND idem_key = p_key;
    -- Ends the read's own transaction on a connection that is not in autocommit, as V3's claim does.
    COMMIT;
    IF v_expires > v_now AND (v_state = 'C' OR (v_state = 'I' AND v_lease > v_now)) THEN
        SELECT v_now AS now_ms, 'E' AS status, v_state AS state, v_fp AS fingerprint, v_token AS token,
               v_attempt AS attempt, v_lease AS lease_until, v_expires AS expires_at, v_outcome AS outcome,
               v_created AS created_at, v_journal AS journal;
    ELSE
        START TRANSACTION;
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
    END IF;
END;
