package memory

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
	_ "modernc.org/sqlite" // the pure-Go driver "sqlite"

	"github.com/toolcall/toolcall/agentkit"
)

// schemaVersion is the version of the schema below, kept in PRAGMA user_version.
// Version 0 is a new, empty database; version 1 had neither turns nor call_ids, which
// migrate fills from the messages (sqlite_recent.go); version 2 (never released) had a
// trigger that failed on a tool call that is not an object, which migrate replaces; version
// 3 had no fencing token in locks, which migrate adds.
const schemaVersion = 4

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
`

// SQLiteOptions configures [OpenSQLite]. A nil *SQLiteOptions, or the zero value, gives the
// defaults documented on each field.
type SQLiteOptions struct {
	// BusyTimeout is how long a write waits for another process writing the same database
	// file. Zero means 5 seconds.
	BusyTimeout time.Duration
	// LockLease is how long a session lock taken by Lock lasts without renewal. The holder
	// renews it every third of the lease while the run goes on, so a lease only expires
	// when its process died: then another process can take the session after at most
	// LockLease. Zero means 30 seconds.
	LockLease time.Duration
	// RelaxedSync sets PRAGMA synchronous=NORMAL instead of FULL: appends no longer wait
	// for the disk (several times faster), and survive a crash of the application but not
	// always a power failure or an OS crash, which may lose the last ones (never corrupt
	// the database). Default false: every Append is on disk when it returns.
	RelaxedSync bool
}

// SQLite is a Memory in a SQLite database file, the embedded persistent default. It uses
// modernc.org/sqlite (pure Go, no cgo), in WAL mode, so that reads do not wait for writes.
//
// Each session is a sequence of rows (session id, sequence number, the message as the JSON
// of openai.ChatCompletionMessage), indexed by where its turns begin and by its tool call
// ids, so that a partial load (agentkit.RecentLoader) reads only the rows it keeps.
// One Append is one transaction: a crash leaves whole steps or nothing. A row that cannot be read back gives an error wrapping [ErrCorrupt] that
// names the session and the sequence number, never a panic. The schema's version is kept in
// PRAGMA user_version; a database of an older version is upgraded when opened, one from a
// newer version of this package is refused with [ErrSchemaVersion].
//
// Lock serializes the runs of a session: it waits for a run of the same *SQLite to end, and
// for a run of another process (or another *SQLite on the same file) through a lease row
// in the database, polled until it is released or expires. Either way, when ctx is done
// first the error wraps agentkit.ErrSessionBusy and ctx.Err(). Every lease has a fencing
// token, one more than the last; Append checks in its own transaction that the lease it
// appends under is still live and still its own, so a process that paused past its lease
// (and whose session another process took) gets an error wrapping agentkit.ErrLeaseLost
// instead of writing into a session it no longer holds.
//
// A SQLite is safe for concurrent use. Close it when done.
type SQLite struct {
	db    *sql.DB
	path  string
	owner string // identifies this *SQLite's leases
	lease time.Duration
	write chan struct{} // one writer of this process at a time: no SQLITE_BUSY among ourselves
	locks Locks

	mu   sync.Mutex
	held map[string]int64 // the fencing token of each session leased by this *SQLite; 0: lost
}

var (
	_ agentkit.Memory        = (*SQLite)(nil)
	_ agentkit.SessionLocker = (*SQLite)(nil)
	_ agentkit.RecentLoader  = (*SQLite)(nil)
	_ Searcher               = (*SQLite)(nil)
	_ SummaryStore           = (*SQLite)(nil)
)

// OpenSQLite opens the database file at path, creating it and its schema when missing.
// path ":memory:" opens a private in-memory database (one connection, no WAL), for tests.
func OpenSQLite(path string, opts *SQLiteOptions) (*SQLite, error) {
	var o SQLiteOptions
	if opts != nil {
		o = *opts
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.LockLease <= 0 {
		o.LockLease = 30 * time.Second
	}
	if path == "" {
		return nil, errors.New("memory: OpenSQLite: empty path")
	}
	syncMode := "FULL"
	if o.RelaxedSync {
		syncMode = "NORMAL"
	}
	memory := path == ":memory:"
	// A file: URI, so that no character of the path is taken for a query: SQLite decodes
	// the %XX escapes of its path.
	dsn := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) +
		fmt.Sprintf("?_txlock=immediate&_pragma=busy_timeout(%d)&_pragma=synchronous(%s)&_pragma=foreign_keys(1)",
			o.BusyTimeout.Milliseconds(), syncMode)
	if !memory {
		dsn += "&_pragma=journal_mode(WAL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("memory: opening %s: %w", path, err)
	}
	if memory {
		db.SetMaxOpenConns(1) // every connection would be a different database
	}
	s := &SQLite{db: db, path: path, owner: rand.Text(), lease: o.LockLease, write: make(chan struct{}, 1), held: map[string]int64{}}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// migrate creates the schema of a new database and checks the version of an existing one.
func (s *SQLite) migrate() error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("memory: opening %s: %w", s.path, err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("memory: opening %s: reading the schema version: %w", s.path, err)
	}
	switch {
	case v == schemaVersion:
		return nil
	case v > schemaVersion:
		return fmt.Errorf("%w: %s has schema version %d, this version of package memory knows versions up to %d: upgrade github.com/toolcall/toolcall", ErrSchemaVersion, s.path, v, schemaVersion)
	}
	if v == 2 {
		if _, err := tx.ExecContext(ctx, "DROP TRIGGER IF EXISTS messages_index"); err != nil {
			return fmt.Errorf("memory: opening %s: upgrading the schema from version 2: %w", s.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("memory: opening %s: creating the schema: %w", s.path, err)
	}
	if v >= 1 && v <= 3 {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE locks ADD COLUMN token INTEGER NOT NULL DEFAULT 0"); err != nil {
			return fmt.Errorf("memory: opening %s: upgrading the schema from version %d: %w", s.path, v, err)
		}
	}
	if v == 1 {
		if _, err := tx.ExecContext(ctx, indexVersion1); err != nil {
			return fmt.Errorf("memory: opening %s: upgrading the schema from version 1: %w", s.path, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return fmt.Errorf("memory: opening %s: setting the schema version: %w", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("memory: opening %s: creating the schema: %w", s.path, err)
	}
	return nil
}

// Close closes the database. Leases still held are released by their unlock functions,
// or expire.
func (s *SQLite) Close() error {
	return s.db.Close()
}

// acquireWrite takes this process's write slot, or gives up when ctx is done.
func (s *SQLite) acquireWrite(ctx context.Context) error {
	select {
	case s.write <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *SQLite) releaseWrite() { <-s.write }

// Load returns the session's history; empty for an unknown session. A row that cannot be
// decoded, or a gap in the sequence numbers, is an error wrapping [ErrCorrupt].
func (s *SQLite) Load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error) {
	return s.load(ctx, session, nil, noGap)
}

// gap is the stretch of a session a partial load leaves out: the messages after first and
// before from.
type gap struct{ first, from int64 }

// noGap loads everything.
var noGap = gap{-1, -1}

// load appends the session's history to dst, without the messages of g.
func (s *SQLite) load(ctx context.Context, session string, dst []openai.ChatCompletionMessage, g gap) ([]openai.ChatCompletionMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: loading session %q: %w", session, err)
	}
	var rows *sql.Rows
	var err error
	if g == noGap {
		rows, err = s.db.QueryContext(ctx, "SELECT seq, message FROM messages WHERE session = ? ORDER BY seq", session)
	} else {
		// Two ranges of the primary key, so that only the rows kept are read: SQLite would
		// walk the whole session for one OR of the two.
		rows, err = s.db.QueryContext(ctx, `SELECT seq, message FROM messages WHERE session = ?1 AND seq <= ?2
			UNION ALL SELECT seq, message FROM messages WHERE session = ?1 AND seq >= ?3 ORDER BY seq`, session, g.first, g.from)
	}
	if err != nil {
		return nil, fmt.Errorf("memory: loading session %q: %w", session, err)
	}
	defer rows.Close()
	out, base := dst, len(dst)
	for rows.Next() {
		var seq int64
		var raw []byte
		if err := rows.Scan(&seq, &raw); err != nil {
			return nil, fmt.Errorf("memory: session %q, row %d: %w: %w", session, len(out)-base, ErrCorrupt, err)
		}
		want := int64(len(out) - base)
		if g != noGap && want > g.first {
			want += g.from - g.first - 1
		}
		if seq != want {
			return nil, fmt.Errorf("memory: session %q: %w: message %d is missing (the next row has sequence number %d)", session, ErrCorrupt, want, seq)
		}
		m, err := decodeMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("memory: session %q, message %d: %w: %w", session, seq, ErrCorrupt, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("memory: loading session %q: %w", session, err)
	}
	return out, nil
}

func decodeMessage(raw []byte) (openai.ChatCompletionMessage, error) {
	var m openai.ChatCompletionMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("%w (row starts %q)", err, clip(string(raw), 40))
	}
	if m.Role == "" {
		return m, fmt.Errorf("the message has no role (row starts %q)", clip(string(raw), 40))
	}
	return m, nil
}

// Append adds msgs to the end of the session's history in one transaction. It is fenced: in
// the same transaction it checks that, when this *SQLite holds the session (Lock), its lease
// is still its own and unexpired — else the error wraps agentkit.ErrLeaseLost — and, when it
// does not, that no other holder's lease is live — else the error wraps
// agentkit.ErrSessionBusy.
func (s *SQLite) Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: appending to session %q: %w", session, err)
	}
	if len(msgs) == 0 {
		return nil
	}
	rows := make([]string, len(msgs))
	for i := range msgs {
		b, err := json.Marshal(msgs[i])
		if err != nil {
			return fmt.Errorf("memory: appending to session %q: encoding message %d of %d: %w", session, i, len(msgs), err)
		}
		rows[i] = string(b)
	}
	if err := s.acquireWrite(ctx); err != nil {
		return fmt.Errorf("memory: appending to session %q: %w", session, err)
	}
	defer s.releaseWrite()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.fence(ctx, tx, session); err != nil {
			return err
		}
		var next int64
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq)+1, 0) FROM messages WHERE session = ?", session).Scan(&next); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, "INSERT INTO messages (session, seq, message) VALUES (?, ?, ?)")
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, r := range rows {
			if _, err := stmt.ExecContext(ctx, session, next+int64(i), r); err != nil {
				return err
			}
		}
		return nil // the trigger messages_index keeps turns and call_ids
	})
	if err != nil {
		return fmt.Errorf("memory: appending to session %q: %w", session, err)
	}
	return nil
}

// inTx runs f in a write transaction (BEGIN IMMEDIATE) and commits it when f succeeds.
func (s *SQLite) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Search searches the session's history (see [SearchMessages]). It reads the whole session.
func (s *SQLite) Search(ctx context.Context, session string, q Query) ([]Match, error) {
	msgs, err := s.load(ctx, session, nil, noGap)
	if err != nil {
		return nil, err
	}
	return SearchMessages(msgs, q), nil
}

// LoadSummary returns the summary Fold saved for the session.
func (s *SQLite) LoadSummary(ctx context.Context, session string) (Summary, error) {
	var sum Summary
	var fp int64
	err := s.db.QueryRowContext(ctx, "SELECT folded, fingerprint, summary FROM summaries WHERE session = ?", session).Scan(&sum.Folded, &fp, &sum.Text)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Summary{}, nil
	case err != nil:
		return Summary{}, fmt.Errorf("memory: loading the summary of session %q: %w", session, err)
	}
	sum.Fingerprint = uint64(fp)
	return sum, nil
}

// SaveSummary keeps the session's summary for Fold.
func (s *SQLite) SaveSummary(ctx context.Context, session string, sum Summary) error {
	if err := s.acquireWrite(ctx); err != nil {
		return fmt.Errorf("memory: saving the summary of session %q: %w", session, err)
	}
	defer s.releaseWrite()
	_, err := s.db.ExecContext(ctx, "INSERT OR REPLACE INTO summaries (session, folded, fingerprint, summary) VALUES (?, ?, ?, ?)",
		session, sum.Folded, int64(sum.Fingerprint), sum.Text)
	if err != nil {
		return fmt.Errorf("memory: saving the summary of session %q: %w", session, err)
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
