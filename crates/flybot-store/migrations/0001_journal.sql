-- The team's journal on PostgreSQL (issue 35): each row is one journal line,
-- byte for byte the line `journal.jsonl` would hold (the first row is the
-- base line, carrying the team), so the digest chain and replay are the
-- home folder's own.
CREATE TABLE IF NOT EXISTS flybot_journal (
    seq BIGINT PRIMARY KEY,
    t BIGINT NOT NULL,
    line TEXT NOT NULL
);

-- The one leader's lease (#14 across machines): a row with an expiry read
-- on the database's clock, and a token that grows with each new holder.
-- Every write checks the token inside its own transaction (the fence).
CREATE TABLE IF NOT EXISTS flybot_lease (
    id INT PRIMARY KEY CHECK (id = 1),
    token BIGINT NOT NULL,
    holder TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
