/**
 * The per-snapshot index file: one SQLite database. Plain tables, indexes on the columns queries look
 * up by (name, file, import target). Bump SCHEMA_VERSION whenever a table changes: readers refuse other
 * versions, and the caller re-indexes.
 */
export const SCHEMA_VERSION = 1;

export const TABLES = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL,
  status TEXT NOT NULL,
  note TEXT,
  lines INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  parse_errors INTEGER NOT NULL
);
CREATE TABLE symbols (
  id INTEGER PRIMARY KEY,
  file_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  container TEXT,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  signature TEXT NOT NULL,
  exported INTEGER NOT NULL
);
CREATE TABLE refs (
  file_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  line INTEGER NOT NULL,
  col INTEGER NOT NULL
);
CREATE TABLE imports (
  file_id INTEGER NOT NULL,
  specifier TEXT NOT NULL,
  kind TEXT NOT NULL,
  line INTEGER NOT NULL,
  names TEXT NOT NULL,
  target_kind TEXT NOT NULL,
  target_path TEXT
);
`;

/** Created after the bulk insert: building an index once is cheaper than maintaining it per row. */
export const INDEXES = `
CREATE INDEX symbols_name ON symbols (name);
CREATE INDEX symbols_name_nocase ON symbols (name COLLATE NOCASE);
CREATE INDEX symbols_file ON symbols (file_id, start_line);
CREATE INDEX refs_name ON refs (name);
CREATE INDEX refs_file ON refs (file_id);
CREATE INDEX imports_file ON imports (file_id);
CREATE INDEX imports_target ON imports (target_path);
`;
