package sqlite

import (
	"context"
	"fmt"
)

// schemaVersion is the version of the schema below, kept in PRAGMA user_version.
// Version 0 is a new, empty database; version 1 had neither turns nor call_ids, which
// migrate fills from the messages (recent.go); version 2 (never released) had a
// trigger that failed on a tool call that is not an object, which migrate replaces; version
// 3 had no fencing token in locks, which migrate adds; version 4 had neither claims nor
// pauses, which the schema below creates (IF NOT EXISTS) and nothing else needs.
const schemaVersion = 5

const schema = `
CREATE TABLE IF NOT EXISTS messages (
	session TEXT    NOT NULL,
	seq     INTEGER NOT NULL, -- 0, 1, 2, … within the session
	message TEXT    NOT NULL, -- the JSON of an openai.ChatCompletionMessage
	PRIMARY KEY (session, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turns ( -- where a session's turns begin: its user messages
	session TEXT    NOT NULL,
	seq     INTEGER NOT NULL,
	PRIMARY KEY (session, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS call_ids ( -- the tool call ids of a session's messages
	session TEXT    NOT NULL,
	id      TEXT    NOT NULL,
	PRIMARY KEY (session, id)
) WITHOUT ROWID;
-- turns and call_ids are kept by SQLite itself, so that rows inserted by any writer (an
-- older version of this package sharing the file, too) are indexed.
CREATE TRIGGER IF NOT EXISTS messages_index AFTER INSERT ON messages WHEN json_valid(NEW.message)
BEGIN
	INSERT OR IGNORE INTO turns (session, seq)
		SELECT NEW.session, NEW.seq WHERE json_extract(NEW.message, '$.role') = 'user';
	-- Paths into the message itself (fullkey), not into each element's value: on a tool
	-- call that is not an object they give NULL where a path into the value fails.
	INSERT OR IGNORE INTO call_ids (session, id)
		SELECT NEW.session, json_extract(NEW.message, fullkey || '.id') FROM json_each(NEW.message, '$.tool_calls')
		WHERE json_type(NEW.message, fullkey || '.id') = 'text';
END;
CREATE TABLE IF NOT EXISTS summaries (
	session     TEXT    NOT NULL PRIMARY KEY,
	folded      INTEGER NOT NULL,
	fingerprint INTEGER NOT NULL,
	summary     TEXT    NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS locks (
	session TEXT    NOT NULL PRIMARY KEY,
	owner   TEXT    NOT NULL,
	expires INTEGER NOT NULL, -- Unix milliseconds
	token   INTEGER NOT NULL DEFAULT 0 -- the fencing token: one more at every new lease
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS claims ( -- agentkit.Ledger: the keys claimed, each once
	key     TEXT    NOT NULL PRIMARY KEY,
	claimed INTEGER NOT NULL -- Unix milliseconds
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pauses ( -- agentkit.PauseStore: a paused session's state
	session TEXT NOT NULL PRIMARY KEY,
	state   BLOB NOT NULL -- the JSON of an agentkit.Pause
) WITHOUT ROWID;
`

// migrate creates the schema of a new database and checks the version of an existing one.
func (s *Store) migrate() error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: opening %s: %w", s.path, err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("sqlite: opening %s: reading the schema version: %w", s.path, err)
	}
	switch {
	case v == schemaVersion:
		return nil
	case v > schemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this version of package memory/sqlite knows versions up to %d: upgrade github.com/toolcall/toolcall", ErrSchemaVersion, s.path, v, schemaVersion)
	}
	if v == 2 {
		if _, err := tx.ExecContext(ctx, "DROP TRIGGER IF EXISTS messages_index"); err != nil {
			return fmt.Errorf("sqlite: opening %s: upgrading the schema from version 2: %w", s.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("sqlite: opening %s: creating the schema: %w", s.path, err)
	}
	if v >= 1 && v <= 3 {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE locks ADD COLUMN token INTEGER NOT NULL DEFAULT 0"); err != nil {
			return fmt.Errorf("sqlite: opening %s: upgrading the schema from version %d: %w", s.path, v, err)
		}
	}
	if v == 1 {
		if _, err := tx.ExecContext(ctx, indexVersion1); err != nil {
			return fmt.Errorf("sqlite: opening %s: upgrading the schema from version 1: %w", s.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return fmt.Errorf("sqlite: opening %s: setting the schema version: %w", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: opening %s: creating the schema: %w", s.path, err)
	}
	return nil
}
