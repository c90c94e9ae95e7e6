-- The turn log on PostgreSQL (issue 35): each row is one line of the turn
-- log's journal (`turns.jsonl`), byte for byte: a Session or room log's
-- line with the file it belongs to, a Session's in-flight note, or a room's
-- run note. The database is the durable record; each host's home folder
-- keeps the files as a copy rebuilt from these rows (`turn_log::database`).
-- `id` is given by the leader in order; the lease's fence guards each batch.
CREATE TABLE IF NOT EXISTS flybot_turns (
    id BIGINT PRIMARY KEY,
    line TEXT NOT NULL
);
