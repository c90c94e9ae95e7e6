-- The team's snapshot on PostgreSQL (issue 35): one row, a base line at
-- `seq` carrying the whole team and the chain's digest there, as the first
-- line of a trimmed `journal.jsonl` would. A start reads it and only the
-- journal rows after it; the rows before it stay for replay and copy.
CREATE TABLE IF NOT EXISTS flybot_snapshot (
    id INT PRIMARY KEY CHECK (id = 1),
    seq BIGINT NOT NULL,
    line TEXT NOT NULL
);
