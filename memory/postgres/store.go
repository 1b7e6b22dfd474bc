package postgres

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/internal/lease"
)

// Options configures [Open]. A nil *Options, or the zero value, gives the defaults
// documented on each field.
type Options struct {
	// Schema is the PostgreSQL schema that holds the store's tables (all named toolcall_…),
	// created when missing. Several applications can share a database, each in a schema of
	// its own. Empty means "public".
	Schema string
	// LockLease is how long a session lock taken by Lock lasts without renewal. The holder
	// renews it every third of the lease while the run goes on, so a lease only expires when
	// its process died, paused, or lost the database for longer than that: another process
	// can then take the session after at most LockLease, and the old holder can no longer
	// append. Zero means 30 seconds.
	LockLease time.Duration
}

// Store is an agentkit.Memory in a PostgreSQL database: the session store of a fleet, which
// every replica of a service shares. See the package documentation for its schema, its
// leases and its search.
//
// A Store is safe for concurrent use. It does not own its pool: close the pool when done,
// after the runs using the Store have ended.
type Store struct {
	pool   *pgxpool.Pool
	schema string // as given
	quoted string // as SQL writes it
	owner  string // identifies this *Store's leases
	lease  time.Duration
	locks  memory.Locks // the runs of this process wait in line here, then for the lease

	held lease.Held[int64] // the fencing token of each session leased by this *Store; 0: lost
}

var (
	_ agentkit.Memory        = (*Store)(nil)
	_ agentkit.SessionLocker = (*Store)(nil)
	_ agentkit.RecentLoader  = (*Store)(nil)
	_ agentkit.Ledger        = (*Store)(nil)
	_ agentkit.PauseStore    = (*Store)(nil)
	_ memory.Searcher        = (*Store)(nil)
	_ memory.SummaryStore    = (*Store)(nil)
)

// Open returns a Store on pool's database, creating or upgrading its schema first (see the
// package documentation: one transaction, under an advisory lock, never a DROP). A schema of
// a newer version than this package knows is refused with an error wrapping
// [ErrSchemaVersion].
//
// Open takes a pool rather than a connection string so that the application keeps its one
// pool per database, configured its way (size, TLS, tracing, statement timeouts), and shares
// it with its own queries. Every operation of the Store takes one connection of the pool
// for the time of a statement or a transaction: a Lock holds none while the run goes on.
func Open(ctx context.Context, pool *pgxpool.Pool, opts *Options) (*Store, error) {
	if pool == nil {
		return nil, errors.New("postgres: Open: nil pool")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Schema == "" {
		o.Schema = "public"
	}
	if o.LockLease <= 0 {
		o.LockLease = 30 * time.Second
	}
	s := &Store{pool: pool, schema: o.Schema, quoted: quoteSchema(o.Schema), owner: rand.Text(), lease: o.LockLease}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// fail is the error of what failing with err: it names what failed, wraps err, and wraps
// ctx.Err() as well when ctx ended (pgx does not always say so).
func (s *Store) fail(ctx context.Context, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("postgres: %s: %w: %w", what, cerr, err)
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// acquire takes a connection of the pool; when ctx ends first, the error says that the pool
// had none free.
func (s *Store) acquire(ctx context.Context, what string) (*pgxpool.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			st := s.pool.Stat()
			return nil, fmt.Errorf("postgres: %s: no connection of the pool came free in time (%d of at most %d in use): %w: %w",
				what, st.AcquiredConns(), st.MaxConns(), cerr, err)
		}
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	return c, nil
}

// inTx runs f in a transaction on a connection of the pool and commits it when f succeeds.
// A transaction whose connection died before its COMMIT was sent (a connection the server
// closed while it sat idle in the pool, after a restart of the database) did not commit: it
// is tried again on another connection, as many times as the pool has connections (each may
// be one the server closed). One whose COMMIT was sent and whose answer was lost is not:
// it may have committed, and its error says so.
func (s *Store) inTx(ctx context.Context, what string, f func(tx pgx.Tx) error) error {
	var err error
	for range s.pool.Config().MaxConns + 1 {
		var retry bool
		if retry, err = s.tryTx(ctx, what, f); !retry || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// tryTx runs f in a transaction, and reports whether it failed without committing because
// its connection died.
func (s *Store) tryTx(ctx context.Context, what string, f func(tx pgx.Tx) error) (retry bool, err error) {
	c, err := s.acquire(ctx, what)
	if err != nil {
		return false, err
	}
	defer c.Release()
	dead := func() bool { return c.Conn().IsClosed() }
	tx, err := c.Begin(ctx)
	if err != nil {
		return dead(), s.fail(ctx, what, err)
	}
	if err := f(tx); err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return dead(), s.fail(ctx, what, err)
	}
	if err := tx.Commit(ctx); err != nil {
		if pgconn.SafeToRetry(err) {
			return true, s.fail(ctx, what, err)
		}
		if dead() {
			return false, s.fail(ctx, what+": the connection was lost at the commit, which may or may not have happened", err)
		}
		return false, s.fail(ctx, what, err)
	}
	return false, nil
}

// query runs one statement on a connection of the pool, scanning its rows with scan. A
// statement whose connection died before it was sent is tried again on another connection.
func (s *Store) query(ctx context.Context, what string, scan func(rows pgx.Rows) error, q string, args ...any) error {
	return s.run(ctx, what, false, scan, q, args)
}

// read is query for a statement that can run twice (it changes nothing, or what it changes
// a second run leaves as the first did): one whose connection died is tried again on
// another connection, even when it was sent.
func (s *Store) read(ctx context.Context, what string, scan func(rows pgx.Rows) error, q string, args ...any) error {
	return s.run(ctx, what, true, scan, q, args)
}

func (s *Store) run(ctx context.Context, what string, again bool, scan func(rows pgx.Rows) error, q string, args []any) error {
	var err error
	for range s.pool.Config().MaxConns + 1 {
		var dead bool
		scanned := 0
		dead, err = s.runOnce(ctx, what, func(rows pgx.Rows) error { scanned++; return scan(rows) }, q, args)
		// Only before the first row: scan has not seen a partial result to take back.
		if err == nil || ctx.Err() != nil || scanned > 0 || !(pgconn.SafeToRetry(err) || again && dead) {
			return err
		}
	}
	return err
}

// runOnce runs the statement once; dead reports whether its connection died.
func (s *Store) runOnce(ctx context.Context, what string, scan func(rows pgx.Rows) error, q string, args []any) (dead bool, err error) {
	c, err := s.acquire(ctx, what)
	if err != nil {
		return false, err
	}
	defer c.Release()
	rows, err := c.Query(ctx, s.sql(q), args...)
	if err != nil {
		return c.Conn().IsClosed(), s.fail(ctx, what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return false, err
		}
	}
	if err := rows.Err(); err != nil {
		return c.Conn().IsClosed(), s.fail(ctx, what, err)
	}
	return false, nil
}

// exec runs one statement on a connection of the pool. A statement whose connection died
// before it was sent is tried again on another connection.
func (s *Store) exec(ctx context.Context, what string, q string, args ...any) (tag pgconn.CommandTag, err error) {
	for range s.pool.Config().MaxConns + 1 {
		tag, err = s.execOnce(ctx, what, q, args)
		if err == nil || ctx.Err() != nil || !pgconn.SafeToRetry(err) {
			return tag, err
		}
	}
	return tag, err
}

func (s *Store) execOnce(ctx context.Context, what string, q string, args []any) (pgconn.CommandTag, error) {
	c, err := s.acquire(ctx, what)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	defer c.Release()
	tag, err := c.Exec(ctx, s.sql(q), args...)
	if err != nil {
		return tag, s.fail(ctx, what, err)
	}
	return tag, nil
}

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
	what := fmt.Sprintf("loading session %q", session)
	q := "SELECT seq, message FROM {s}.toolcall_messages WHERE session = $1 ORDER BY seq"
	args := []any{session}
	if g != noGap {
		// Two ranges of the primary key: only the rows kept are read.
		q = `(SELECT seq, message FROM {s}.toolcall_messages WHERE session = $1 AND seq <= $2 ORDER BY seq)
			UNION ALL (SELECT seq, message FROM {s}.toolcall_messages WHERE session = $1 AND seq >= $3 ORDER BY seq)`
		args = append(args, g.first, g.from)
	}
	out, base := dst, len(dst)
	err := s.read(ctx, what, func(rows pgx.Rows) error {
		var seq int64
		var raw string
		if err := rows.Scan(&seq, &raw); err != nil {
			return fmt.Errorf("postgres: session %q, row %d: %w: %w", session, len(out)-base, ErrCorrupt, err)
		}
		want := int64(len(out) - base)
		if g != noGap && want > g.first {
			want += g.from - g.first - 1
		}
		if seq != want {
			return fmt.Errorf("postgres: session %q: %w: message %d is missing (the next row has sequence number %d)", session, ErrCorrupt, want, seq)
		}
		m, err := decodeMessage(raw)
		if err != nil {
			return fmt.Errorf("postgres: session %q, message %d: %w: %w", session, seq, ErrCorrupt, err)
		}
		out = append(out, m)
		return nil
	}, q, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func decodeMessage(raw string) (openai.ChatCompletionMessage, error) {
	var m openai.ChatCompletionMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return m, fmt.Errorf("%w (row starts %q)", err, clip(raw, 40))
	}
	if m.Role == "" {
		return m, fmt.Errorf("the message has no role (row starts %q)", clip(raw, 40))
	}
	return m, nil
}

// rowsOf are the columns of msgs' rows, as Append inserts them.
type rowsOf struct {
	roles, callIDs, messages, search []string
	// The tool calls: the index of their message in msgs, their id and tool.
	callAt          []int64
	callID, callFor []string
}

func encode(msgs []openai.ChatCompletionMessage) (rowsOf, error) {
	var r rowsOf
	for i := range msgs {
		m := &msgs[i]
		j, err := json.Marshal(m)
		if err != nil {
			return r, fmt.Errorf("encoding message %d of %d: %w", i, len(msgs), err)
		}
		r.roles = append(r.roles, m.Role)
		r.callIDs = append(r.callIDs, m.ToolCallID)
		r.messages = append(r.messages, string(j))
		// PostgreSQL's text holds no NUL; the JSON escapes it, the searched text drops it.
		r.search = append(r.search, strings.ReplaceAll(strings.ToLower(memory.SearchText(m)), "\x00", ""))
		for _, c := range m.ToolCalls {
			if c.ID != "" {
				r.callAt, r.callID, r.callFor = append(r.callAt, int64(i)), append(r.callID, c.ID), append(r.callFor, c.Function.Name)
			}
		}
	}
	return r, nil
}

// Append adds msgs to the end of the session's history in one transaction. It is fenced: in
// the same transaction it checks, holding the lease row against a takeover until it
// commits, that when this *Store holds the session (Lock) its lease is still its own and
// unexpired — else the error wraps agentkit.ErrLeaseLost — and, when it does not, that no
// other holder's lease is live — else the error wraps agentkit.ErrSessionBusy.
func (s *Store) Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error {
	what := fmt.Sprintf("appending to session %q", session)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	if len(msgs) == 0 {
		return nil
	}
	r, err := encode(msgs)
	if err != nil {
		return fmt.Errorf("postgres: %s: %w", what, err)
	}
	return s.inTx(ctx, what, func(tx pgx.Tx) error {
		if err := s.fence(ctx, tx, session); err != nil {
			return err
		}
		// One statement: the sequence numbers, the messages, their call ids. The session's
		// row in toolcall_sessions is locked until the commit: appends to one session queue
		// there, and take the numbers after the last append's.
		_, err := tx.Exec(ctx, s.sql(`WITH seq AS (
				INSERT INTO {s}.toolcall_sessions AS t (session, next) VALUES ($1, $2)
				ON CONFLICT (session) DO UPDATE SET next = t.next + $2 RETURNING next - $2 AS first),
			msgs AS (
				INSERT INTO {s}.toolcall_messages (session, seq, role, tool_call_id, message, search)
				SELECT $1, seq.first + m.i - 1, m.role, m.call, m.message, m.search
				FROM seq, unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS m(role, call, message, search, i))
			INSERT INTO {s}.toolcall_call_ids (session, id, seq, name)
			SELECT $1, c.id, seq.first + c.at, c.name FROM seq, unnest($7::bigint[], $8::text[], $9::text[]) AS c(at, id, name)
			ON CONFLICT DO NOTHING`),
			session, int64(len(msgs)), r.roles, r.callIDs, r.messages, r.search, r.callAt, r.callID, r.callFor)
		return err
	})
}

// LoadSummary returns the summary memory.Fold saved for the session (memory.SummaryStore).
func (s *Store) LoadSummary(ctx context.Context, session string) (memory.Summary, error) {
	var sum memory.Summary
	err := s.read(ctx, fmt.Sprintf("loading the summary of session %q", session), func(rows pgx.Rows) error {
		var fp int64
		if err := rows.Scan(&sum.Folded, &fp, &sum.Text); err != nil {
			return fmt.Errorf("postgres: loading the summary of session %q: %w", session, err)
		}
		sum.Fingerprint = uint64(fp)
		return nil
	}, "SELECT folded, fingerprint, summary FROM {s}.toolcall_summaries WHERE session = $1", session)
	if err != nil {
		return memory.Summary{}, err
	}
	return sum, nil
}

// SaveSummary keeps the session's summary for memory.Fold (memory.SummaryStore).
func (s *Store) SaveSummary(ctx context.Context, session string, sum memory.Summary) error {
	_, err := s.exec(ctx, fmt.Sprintf("saving the summary of session %q", session),
		`INSERT INTO {s}.toolcall_summaries (session, folded, fingerprint, summary) VALUES ($1, $2, $3, $4)
		ON CONFLICT (session) DO UPDATE SET folded = EXCLUDED.folded, fingerprint = EXCLUDED.fingerprint, summary = EXCLUDED.summary`,
		session, int64(sum.Folded), int64(sum.Fingerprint), sum.Text)
	return err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
