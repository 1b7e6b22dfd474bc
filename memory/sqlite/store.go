package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	_ "modernc.org/sqlite" // the pure-Go driver "sqlite"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/internal/lease"
)

// Options configures [Open]. A nil *Options, or the zero value, gives the
// defaults documented on each field.
type Options struct {
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

// Store is an agentkit.Memory in a SQLite database file, the embedded persistent store. It
// uses modernc.org/sqlite (pure Go, no cgo), in WAL mode, so that reads do not wait for
// writes.
//
// Each session is a sequence of rows (session id, sequence number, the message as the JSON
// of openai.ChatCompletionMessage), indexed by where its turns begin and by its tool call
// ids, so that a partial load (agentkit.RecentLoader) reads only the rows it keeps.
// One Append is one transaction: a crash leaves whole steps or nothing. A row that cannot be
// read back gives an error wrapping [ErrCorrupt] that names the session and the sequence
// number, never a panic. The schema's version is kept in
// PRAGMA user_version; a database of an older version is upgraded when opened, one from a
// newer version of this package is refused with [ErrSchemaVersion].
//
// Lock serializes the runs of a session: it waits for a run of the same *Store to end, and
// for a run of another process (or another *Store on the same file) through a lease row
// in the database, polled until it is released or expires. Either way, when ctx is done
// first the error wraps agentkit.ErrSessionBusy and ctx.Err(). Every lease has a fencing
// token, one more than the last; Append checks in its own transaction that the lease it
// appends under is still live and still its own, so a process that paused past its lease
// (and whose session another process took) gets an error wrapping agentkit.ErrLeaseLost
// instead of writing into a session it no longer holds.
//
// A Store is safe for concurrent use. Close it when done.
type Store struct {
	db    *sql.DB
	path  string
	owner string // identifies this *Store's leases
	lease time.Duration
	write chan struct{} // one writer of this process at a time: no SQLITE_BUSY among ourselves
	locks memory.Locks  // the runs of this process wait in line here, then for the lease

	held lease.Held[int64] // the fencing token of each session leased by this *Store; 0: lost
}

var (
	_ agentkit.Memory        = (*Store)(nil)
	_ agentkit.SessionLocker = (*Store)(nil)
	_ agentkit.RecentLoader  = (*Store)(nil)
	_ memory.Searcher        = (*Store)(nil)
	_ memory.SummaryStore    = (*Store)(nil)
)

// Open opens the database file at path, creating it and its schema when missing.
// path ":memory:" opens a private in-memory database (one connection, no WAL), for tests.
func Open(path string, opts *Options) (*Store, error) {
	var o Options
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
		return nil, errors.New("sqlite: Open: empty path")
	}
	syncMode := "FULL"
	if o.RelaxedSync {
		syncMode = "NORMAL"
	}
	inMemory := path == ":memory:"
	// A file: URI, so that no character of the path is taken for a query: SQLite decodes
	// the %XX escapes of its path.
	dsn := "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path) +
		fmt.Sprintf("?_txlock=immediate&_pragma=busy_timeout(%d)&_pragma=synchronous(%s)&_pragma=foreign_keys(1)",
			o.BusyTimeout.Milliseconds(), syncMode)
	if !inMemory {
		dsn += "&_pragma=journal_mode(WAL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: opening %s: %w", path, err)
	}
	if inMemory {
		db.SetMaxOpenConns(1) // every connection would be a different database
	}
	s := &Store{db: db, path: path, owner: rand.Text(), lease: o.LockLease, write: make(chan struct{}, 1)}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database. Leases still held are released by their unlock functions,
// or expire.
func (s *Store) Close() error {
	return s.db.Close()
}

// acquireWrite takes this process's write slot, or gives up when ctx is done.
func (s *Store) acquireWrite(ctx context.Context) error {
	select {
	case s.write <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Store) releaseWrite() { <-s.write }

// Load returns the session's history; empty for an unknown session. A row that cannot be
// decoded, or a gap in the sequence numbers, is an error wrapping [ErrCorrupt].
func (s *Store) Load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error) {
	return s.load(ctx, session, nil, noGap)
}

// gap is the stretch of a session a partial load leaves out: the messages after first and
// before from.
type gap struct{ first, from int64 }

// noGap loads everything.
var noGap = gap{-1, -1}

// load appends the session's history to dst, without the messages of g.
func (s *Store) load(ctx context.Context, session string, dst []openai.ChatCompletionMessage, g gap) ([]openai.ChatCompletionMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: loading session %q: %w", session, err)
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
		return nil, fmt.Errorf("sqlite: loading session %q: %w", session, err)
	}
	defer rows.Close()
	out, base := dst, len(dst)
	for rows.Next() {
		var seq int64
		var raw []byte
		if err := rows.Scan(&seq, &raw); err != nil {
			return nil, fmt.Errorf("sqlite: session %q, row %d: %w: %w", session, len(out)-base, ErrCorrupt, err)
		}
		want := int64(len(out) - base)
		if g != noGap && want > g.first {
			want += g.from - g.first - 1
		}
		if seq != want {
			return nil, fmt.Errorf("sqlite: session %q: %w: message %d is missing (the next row has sequence number %d)", session, ErrCorrupt, want, seq)
		}
		m, err := decodeMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("sqlite: session %q, message %d: %w: %w", session, seq, ErrCorrupt, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: loading session %q: %w", session, err)
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
// the same transaction it checks that, when this *Store holds the session (Lock), its lease
// is still its own and unexpired — else the error wraps agentkit.ErrLeaseLost — and, when it
// does not, that no other holder's lease is live — else the error wraps
// agentkit.ErrSessionBusy.
func (s *Store) Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: appending to session %q: %w", session, err)
	}
	if len(msgs) == 0 {
		return nil
	}
	rows := make([]string, len(msgs))
	for i := range msgs {
		b, err := json.Marshal(msgs[i])
		if err != nil {
			return fmt.Errorf("sqlite: appending to session %q: encoding message %d of %d: %w", session, i, len(msgs), err)
		}
		rows[i] = string(b)
	}
	if err := s.acquireWrite(ctx); err != nil {
		return fmt.Errorf("sqlite: appending to session %q: %w", session, err)
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
		return fmt.Errorf("sqlite: appending to session %q: %w", session, err)
	}
	return nil
}

// inTx runs f in a write transaction (BEGIN IMMEDIATE) and commits it when f succeeds.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
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

// Search searches the session's history (see [memory.SearchMessages]). It reads the whole
// session.
func (s *Store) Search(ctx context.Context, session string, q memory.Query) ([]memory.Match, error) {
	msgs, err := s.load(ctx, session, nil, noGap)
	if err != nil {
		return nil, err
	}
	return memory.SearchMessages(msgs, q), nil
}

// LoadSummary returns the summary memory.Fold saved for the session (memory.SummaryStore).
func (s *Store) LoadSummary(ctx context.Context, session string) (memory.Summary, error) {
	var sum memory.Summary
	var fp int64
	err := s.db.QueryRowContext(ctx, "SELECT folded, fingerprint, summary FROM summaries WHERE session = ?", session).Scan(&sum.Folded, &fp, &sum.Text)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return memory.Summary{}, nil
	case err != nil:
		return memory.Summary{}, fmt.Errorf("sqlite: loading the summary of session %q: %w", session, err)
	}
	sum.Fingerprint = uint64(fp)
	return sum, nil
}

// SaveSummary keeps the session's summary for memory.Fold (memory.SummaryStore).
func (s *Store) SaveSummary(ctx context.Context, session string, sum memory.Summary) error {
	if err := s.acquireWrite(ctx); err != nil {
		return fmt.Errorf("sqlite: saving the summary of session %q: %w", session, err)
	}
	defer s.releaseWrite()
	_, err := s.db.ExecContext(ctx, "INSERT OR REPLACE INTO summaries (session, folded, fingerprint, summary) VALUES (?, ?, ?, ?)",
		session, sum.Folded, int64(sum.Fingerprint), sum.Text)
	if err != nil {
		return fmt.Errorf("sqlite: saving the summary of session %q: %w", session, err)
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
