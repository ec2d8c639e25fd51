-- idem SPI v2, PostgreSQL 12+ (after V1): when the record was first claimed, and the step
-- journal of multi-step work. Runs on a populated table (adding nullable columns rewrites
-- nothing); rows written before it report their read time as their creation time.
ALTER TABLE idem_record ADD COLUMN IF NOT EXISTS created_at BIGINT;
ALTER TABLE idem_record ADD COLUMN IF NOT EXISTS journal BYTEA;
