package redis

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/internal/lease"
)

// Options configures [New]. A nil *Options, or the zero value, gives the defaults
// documented on each field.
type Options struct {
	// Prefix begins the name of every key the store writes, so that it can share a Redis
	// with other data: the prefix is the store's own (New writes its layout version there).
	// Empty means "toolcall:".
	Prefix string
	// LockLease is how long a session lock taken by Lock lasts without renewal. The holder
	// renews it every third of the lease while the run goes on, so a lease only expires
	// when its process died, paused or lost Redis for longer: then another process can take
	// the session after at most LockLease. Zero means 30 seconds.
	LockLease time.Duration

	// skipRenew, set by the tests (export_test.go), stands for a holder paused past its
	// lease: while it returns true, the renewals of the session's lease are skipped.
	skipRenew func(session string) bool
}

// Store is an agentkit.Memory in Redis, shared by every process that uses the same Redis
// and Prefix. See the package documentation for the key layout and what it guarantees.
//
// A Store is safe for concurrent use. It has nothing to close: the client is the
// application's, and a lock's unlock function stops its renewal.
type Store struct {
	rdb    goredis.UniversalClient
	prefix string
	lease  time.Duration
	skip   func(session string) bool
	locks  memory.Locks // the runs of this process wait in line here, then for the lease

	held lease.Held[string] // the lease value ("token:nonce") of each session this Store holds; "" once lost
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

// New returns a Store on client, which stays the application's: its address, TLS, auth,
// pool and timeouts, a Sentinel or Cluster setup, and its hooks (tracing, metrics) are the
// application's choice, one pool serves the store and the rest of the service, and the
// application closes it. New checks the data layout's version under Options.Prefix, and
// writes it when there is none (see [LayoutVersion]); a newer one is refused with
// [ErrLayoutVersion].
//
// Set ContextTimeoutEnabled in the client's options so that a context's deadline also
// bounds the reads and writes of a connection, not only the wait for one.
func New(ctx context.Context, client goredis.UniversalClient, opts *Options) (*Store, error) {
	if client == nil {
		return nil, errors.New("redis: New: nil client")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = "toolcall:"
	}
	if o.LockLease <= 0 {
		o.LockLease = 30 * time.Second
	}
	s := &Store{rdb: client, prefix: o.Prefix, lease: o.LockLease, skip: o.skipRenew}
	if err := s.checkLayout(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// key names one of the session's keys. The session is a hash tag, so that all its keys
// live on one node of a Redis Cluster, as its scripts need; kind holds no '}', so that
// key is one-to-one.
func (s *Store) key(session, kind string) string {
	return s.prefix + "{s:" + session + "}:" + kind
}

// Load returns the session's history; empty for an unknown session. A message that cannot
// be decoded is an error wrapping [ErrCorrupt].
func (s *Store) Load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: loading session %q: %w", session, failed(ctx, err))
	}
	raw, err := s.rdb.LRange(ctx, s.key(session, "msgs"), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("redis: loading session %q: %w", session, failed(ctx, err))
	}
	return decodeAll(session, raw, 0, 0)
}

// decodeAll decodes raw, the session's stored messages with omitted left out after the
// one at position first.
func decodeAll(session string, raw []string, first, omitted int) ([]openai.ChatCompletionMessage, error) {
	out := make([]openai.ChatCompletionMessage, len(raw), len(raw)+loadRoom)
	for i, r := range raw {
		pos := i
		if omitted > 0 && i > first {
			pos += omitted
		}
		if err := json.Unmarshal([]byte(r), &out[i]); err != nil {
			return nil, fmt.Errorf("redis: session %q, message %d: %w: %w (it starts %q)", session, pos, ErrCorrupt, err, clip(r, 40))
		}
		if out[i].Role == "" {
			return nil, fmt.Errorf("redis: session %q, message %d: %w: no role (it starts %q)", session, pos, ErrCorrupt, clip(r, 40))
		}
	}
	return out, nil
}

// loadRoom is the spare capacity of a load: the system prompt and the first messages of
// the run that loads it fit without a new array.
const loadRoom = 8

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Append adds msgs to the end of the session's history, atomically: one Lua script pushes
// the messages and indexes their turns and tool call ids. It is fenced: in the same script
// it checks that, when this Store holds the session (Lock), its lease is still its own —
// else the error wraps agentkit.ErrLeaseLost — and, when it does not, that no other holder
// leases the session — else the error wraps agentkit.ErrSessionBusy.
func (s *Store) Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: appending to session %q: %w", session, failed(ctx, err))
	}
	if len(msgs) == 0 {
		return nil
	}
	return s.appendBatch(ctx, session, msgs, rand.Text())
}

// appendBatch appends msgs as the batch of id, unless a batch of that id was appended last
// or among the latest 64.
func (s *Store) appendBatch(ctx context.Context, session string, msgs []openai.ChatCompletionMessage, id string) error {
	lease, mine := s.held.Get(session)
	if mine && lease == "" {
		return fmt.Errorf("redis: appending to session %q: %w: its renewal found the lease taken", session, agentkit.ErrLeaseLost)
	}
	args := make([]any, 4, 4+len(msgs)+4)
	args[0], args[1], args[2] = lease, id, len(msgs)
	var users, calls []any
	for i := range msgs {
		b, err := json.Marshal(msgs[i])
		if err != nil {
			return fmt.Errorf("redis: appending to session %q: encoding message %d of %d: %w", session, i, len(msgs), err)
		}
		args = append(args, string(b))
		if msgs[i].Role == openai.ChatMessageRoleUser {
			users = append(users, i)
		}
		for _, c := range msgs[i].ToolCalls {
			if c.ID != "" {
				calls = append(calls, c.ID)
			}
		}
	}
	args[3] = len(users)
	args = append(append(args, users...), calls...)
	keys := []string{s.key(session, "msgs"), s.key(session, "turns"), s.key(session, "calls"), s.key(session, "lease"), s.key(session, "batches")}
	if err := appendScript.Run(ctx, s.rdb, keys, args...).Err(); err != nil {
		return fmt.Errorf("redis: appending to session %q: %w", session, failed(ctx, fenceError(err)))
	}
	return nil
}

// fenceError turns the refusals of appendScript into the errors of agentkit.
func fenceError(err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "LEASELOST"):
		return fmt.Errorf("%w: %s", agentkit.ErrLeaseLost, strings.TrimPrefix(msg, "LEASELOST "))
	case strings.HasPrefix(msg, "LEASEBUSY"):
		ms, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(msg, "LEASEBUSY")), 10, 64)
		return fmt.Errorf("%w: another process leases it for another %s", agentkit.ErrSessionBusy, time.Duration(ms)*time.Millisecond)
	}
	return err
}

// failed is err, wrapping also ctx's error when ctx ended: a deadline that cut off a read
// (ContextTimeoutEnabled) is otherwise only go-redis's i/o timeout.
func failed(ctx context.Context, err error) error {
	if cerr := ctxErr(ctx); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", err, cerr)
	}
	return err
}

// ctxErr is ctx.Err(), or DeadlineExceeded once ctx's deadline passed: a connection's
// deadline, set from ctx's, may end a read a moment before ctx's timer fires.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// Search searches the session's history (see [memory.SearchMessages]). It loads the whole
// session: Redis has no full-text search without modules.
func (s *Store) Search(ctx context.Context, session string, q memory.Query) ([]memory.Match, error) {
	msgs, err := s.Load(ctx, session)
	if err != nil {
		return nil, err
	}
	return memory.SearchMessages(msgs, q), nil
}
