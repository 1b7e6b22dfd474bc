package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The schema is versioned: the table toolcall_schema holds one row, the version of the
// schema in the database. migrations[i] takes a database from version i to version i+1;
// Open applies the ones a database lacks, in one transaction, under an advisory lock, so
// that processes opening one database at once migrate it once. A migration only ever adds
// (tables, columns, indexes): none drops anything. A database of a newer version than
// len(migrations) is refused with ErrSchemaVersion and left as it is.
//
// Every name is in Options.Schema and begins with toolcall_, so that the store can share a
// database (and a schema) with the application's own tables. In the SQL below, {s} stands
// for the quoted schema name.
var migrations = []string{
	// Version 1.
	`
CREATE TABLE {s}.toolcall_messages (
	session      text   NOT NULL,
	seq          bigint NOT NULL, -- 0, 1, 2, … within the session
	role         text   NOT NULL,
	tool_call_id text   NOT NULL DEFAULT '', -- of a tool result: which call it answers
	message      text   NOT NULL, -- the JSON of an openai.ChatCompletionMessage, as encoding/json wrote it
	search       text   NOT NULL, -- the text searched: content, parts, refusal, tool names and arguments, lower case
	tsv          tsvector GENERATED ALWAYS AS (to_tsvector('simple', search)) STORED,
	PRIMARY KEY (session, seq)
);
-- Where a session's turns begin (its user messages), for partial loads.
CREATE INDEX toolcall_messages_turns ON {s}.toolcall_messages (session, seq) WHERE role = 'user';
CREATE TABLE {s}.toolcall_sessions ( -- the next sequence number of each session
	session text   NOT NULL PRIMARY KEY,
	next    bigint NOT NULL
);
CREATE TABLE {s}.toolcall_call_ids ( -- the tool call ids of a session's messages
	session text   NOT NULL,
	id      text   NOT NULL,
	seq     bigint NOT NULL, -- of the assistant message that made the call
	name    text   NOT NULL, -- the tool called
	PRIMARY KEY (session, id, seq)
);
CREATE TABLE {s}.toolcall_summaries (
	session     text   NOT NULL PRIMARY KEY,
	folded      bigint NOT NULL,
	fingerprint bigint NOT NULL, -- a uint64, as the int64 of the same bits
	summary     text   NOT NULL
);
CREATE TABLE {s}.toolcall_leases (
	session text        NOT NULL PRIMARY KEY,
	owner   text        NOT NULL, -- the *Store holding the lease
	token   bigint      NOT NULL, -- the fencing token: one more at every new lease
	expires timestamptz NOT NULL  -- by the database's clock, never a client's
);
CREATE TABLE {s}.toolcall_claims ( -- agentkit.Ledger: the keys claimed, each once
	key     text        NOT NULL PRIMARY KEY,
	claimed timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE {s}.toolcall_pauses ( -- agentkit.PauseStore: a paused session's state
	session text  NOT NULL PRIMARY KEY,
	state   bytea NOT NULL -- the JSON of an agentkit.Pause
);
`,
}

// SchemaVersion is the version of the schema this package writes and reads.
const SchemaVersion = 1

// migrationLock is the first key of the advisory lock Open takes to migrate (the second is
// the hash of the schema's name): "tc" in ASCII.
const migrationLock = 0x7463

// migrate brings the schema to SchemaVersion, or refuses a newer one.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return s.fail(ctx, "opening: migrating the schema", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", migrationLock, s.schema); err != nil {
		return s.fail(ctx, "opening: locking the schema", err)
	}
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", s.schema).Scan(&exists); err != nil {
		return s.fail(ctx, "opening: looking for the schema", err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, s.sql("CREATE SCHEMA {s}")); err != nil {
			return s.fail(ctx, "opening: creating the schema", err)
		}
	}
	if _, err := tx.Exec(ctx, s.sql("CREATE TABLE IF NOT EXISTS {s}.toolcall_schema (version integer NOT NULL)")); err != nil {
		return s.fail(ctx, "opening: creating the version table", err)
	}
	var v int
	if err := tx.QueryRow(ctx, s.sql("SELECT COALESCE(MAX(version), 0) FROM {s}.toolcall_schema")).Scan(&v); err != nil {
		return s.fail(ctx, "opening: reading the schema version", err)
	}
	switch {
	case v == SchemaVersion:
		return nil
	case v > SchemaVersion:
		return fmt.Errorf("%w: schema %q has version %d, this version of package memory/postgres knows versions up to %d: upgrade github.com/toolcall/toolcall/memory/postgres",
			ErrSchemaVersion, s.schema, v, SchemaVersion)
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.Exec(ctx, s.sql(migrations[i])); err != nil {
			return s.fail(ctx, fmt.Sprintf("opening: migrating schema %q from version %d to %d", s.schema, i, i+1), err)
		}
	}
	set := "UPDATE {s}.toolcall_schema SET version = $1"
	if v == 0 {
		set = "INSERT INTO {s}.toolcall_schema (version) VALUES ($1)"
	}
	if _, err := tx.Exec(ctx, s.sql(set), SchemaVersion); err != nil {
		return s.fail(ctx, "opening: setting the schema version", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return s.fail(ctx, "opening: migrating the schema", err)
	}
	return nil
}

// sql puts the store's quoted schema name in place of {s} in q.
func (s *Store) sql(q string) string {
	return strings.ReplaceAll(q, "{s}", s.quoted)
}

func quoteSchema(name string) string { return pgx.Identifier{name}.Sanitize() }
