-- idem SPI v2, H2 2.x (after V1): when the record was first claimed, and the step journal
-- of multi-step work. Rows written before it report their read time as their creation time.
ALTER TABLE idem_record ADD COLUMN IF NOT EXISTS created_at BIGINT;
ALTER TABLE idem_record ADD COLUMN IF NOT EXISTS journal BLOB;
