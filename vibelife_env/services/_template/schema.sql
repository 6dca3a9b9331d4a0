-- Tables of the template service: copy this folder, rename, then model your domain.
-- Name tables and columns as the public SPEC does, when there is one.

CREATE TABLE items (
    item_id    TEXT PRIMARY KEY,          -- item_%06d from _counters
    title      TEXT NOT NULL,
    done       INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL              -- ISO-8601 UTC with Z, from the world clock
);

-- Id counters (Service.mint_id / next_seq); seeds may pre-set a counter.
CREATE TABLE _counters (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
