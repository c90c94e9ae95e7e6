-- The last records on PostgreSQL (issue 35): memory files, decisions, the
-- interop journals and the usage ledger. Each host's home folder keeps a
-- copy of the files (`engine::records`); the database is the record.
--
-- A whole file kept by its path in the home (a memory file, an interop
-- journal's side file). `body` NULL: the file was removed (a Bot's memory
-- archived away), kept so a standby removes its copy too.
CREATE TABLE IF NOT EXISTS flybot_files (
    path TEXT PRIMARY KEY,
    body BYTEA,
    rev BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS flybot_files_rev ON flybot_files (rev);

-- A file of lines, one row per line (`decisions.jsonl`, an interop
-- journal's `journal.jsonl`), in `rev` order.
CREATE TABLE IF NOT EXISTS flybot_lines (
    rev BIGINT PRIMARY KEY,
    path TEXT NOT NULL,
    line TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS flybot_lines_path ON flybot_lines (path, rev);

-- The one counter of both tables. Each write raises it first, and its row
-- stays locked until that write commits, so revs commit in order and a
-- standby that read up to the counter has missed no row below it.
CREATE TABLE IF NOT EXISTS flybot_records_rev (
    id INT PRIMARY KEY CHECK (id = 1),
    rev BIGINT NOT NULL
);
INSERT INTO flybot_records_rev (id, rev) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;

-- The usage ledger (#903, ledger version 3): the columns of `calls` in
-- `usage.sqlite`, one row per model call.
CREATE TABLE IF NOT EXISTS flybot_usage_calls (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    bot_id TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    input_tokens BIGINT,
    output_tokens BIGINT,
    cached_tokens BIGINT,
    reasoning_tokens BIGINT,
    harness TEXT NOT NULL DEFAULT 'default',
    issue_pr TEXT NOT NULL DEFAULT '',
    tool_calls BIGINT,
    wall_ms BIGINT
);
CREATE INDEX IF NOT EXISTS flybot_usage_calls_at ON flybot_usage_calls (at_ms, id);
