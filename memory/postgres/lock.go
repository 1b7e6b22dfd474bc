package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/internal/lease"
)

// Lock holds the session for one run: first against the runs of this *Store (waiting in
// line), then against other processes through a lease row in toolcall_leases, polled until
// the holder releases it or its lease expires (by the database's clock). When ctx is done
// first the error wraps agentkit.ErrSessionBusy and ctx.Err(). While held, the lease is
// renewed every third of Options.LockLease by a goroutine that unlock stops; no connection
// is held in between. unlock may be called more than once.
//
// Every lease has a fencing token, one more than the last lease of the session: Append
// checks it (see Append), so a holder that lost its lease cannot write.
func (s *Store) Lock(ctx context.Context, session string) (unlock func(), err error) {
	local, err := s.locks.Lock(ctx, session)
	if err != nil {
		return nil, err
	}
	token, err := s.waitLease(ctx, session)
	if err != nil {
		local()
		return nil, err
	}
	release := func(token int64) {
		ctx, cancel := context.WithTimeout(context.Background(), s.lease)
		defer cancel()
		// Expired, not deleted: the next lease's token is one more than this one's. A
		// release that fails leaves the lease to expire.
		s.exec(ctx, "releasing a lease", "UPDATE {s}.toolcall_leases SET expires = 'epoch' WHERE session = $1 AND owner = $2 AND token = $3",
			session, s.owner, token)
	}
	renew := func(token int64) bool { return s.renewOnce(session, token) }
	return lease.Hold(&s.held, session, token, s.lease/3, renew, release, local), nil
}

// waitLease polls for the session's lease until it gets it (its token) or ctx ends.
func (s *Store) waitLease(ctx context.Context, session string) (int64, error) {
	wait := 20 * time.Millisecond
	var held time.Time // until when another process holds the session, as last seen
	for {
		token, until, err := s.tryLease(ctx, session)
		switch {
		case err != nil && ctx.Err() != nil && held.IsZero():
			// err says why (no connection of the pool came free, say) and wraps ctx.Err().
			return 0, fmt.Errorf("postgres: waiting for session %q: %w: %w", session, agentkit.ErrSessionBusy, err)
		case err != nil && ctx.Err() != nil:
			return 0, waitError(session, held, ctx.Err())
		case err != nil:
			return 0, fmt.Errorf("postgres: locking session %q: %w", session, err)
		case token != 0:
			return token, nil
		}
		held = until
		t := time.NewTimer(wait)
		select {
		case <-t.C:
			wait = min(2*wait, time.Second)
		case <-ctx.Done():
			t.Stop()
			return 0, waitError(session, held, ctx.Err())
		}
	}
}

// waitError is the error of a Lock whose ctx ended (with ctxErr) while it waited for the
// session, held by another process until held as last seen (zero when Lock saw no holder).
func waitError(session string, held time.Time, ctxErr error) error {
	if held.IsZero() {
		return fmt.Errorf("postgres: waiting for session %q: %w: %w", session, agentkit.ErrSessionBusy, ctxErr)
	}
	return fmt.Errorf("postgres: waiting for session %q, leased by another process until %s: %w: %w",
		session, held.Format(time.RFC3339), agentkit.ErrSessionBusy, ctxErr)
}

// tryLease takes the session's lease, with the next fencing token, when it is free, expired
// or this *Store's own (whose runs of the session wait in line in s.locks). Otherwise it
// returns token 0 and when the other holder's lease expires. One statement: of processes
// trying at once, one gets the lease.
func (s *Store) tryLease(ctx context.Context, session string) (token int64, heldUntil time.Time, err error) {
	err = s.read(ctx, fmt.Sprintf("locking session %q", session), func(rows pgx.Rows) error {
		return rows.Scan(&token, &heldUntil)
	}, `WITH taken AS (
			INSERT INTO {s}.toolcall_leases AS l (session, owner, token, expires)
			VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
			ON CONFLICT (session) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + 1, expires = EXCLUDED.expires
			WHERE l.expires <= now() OR l.owner = EXCLUDED.owner
			RETURNING token)
		SELECT token, now() FROM taken
		UNION ALL SELECT 0, expires FROM {s}.toolcall_leases WHERE session = $1 AND NOT EXISTS (SELECT 1 FROM taken)`,
		session, s.owner, s.lease.Milliseconds())
	return token, heldUntil, err
}

// renewOnce extends the lease of token, if it is still live, and reports false when it is
// not. A renewal that cannot reach the database (or get a connection of the pool) in a third
// of the lease is tried again at the next tick.
func (s *Store) renewOnce(session string, token int64) bool {
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	tag, err := s.exec(ctx, "renewing a lease", `UPDATE {s}.toolcall_leases SET expires = now() + $4 * interval '1 millisecond'
		WHERE session = $1 AND owner = $2 AND token = $3 AND expires > now()`, session, s.owner, token, s.lease.Milliseconds())
	return err != nil || tag.RowsAffected() > 0
}

// fence refuses, in an Append's transaction, an append to a session whose lease this *Store
// lost, or that another holder leases. It locks the lease row (FOR SHARE) until the
// transaction ends, so that no other process takes the lease between the check and the
// commit: an append either lands before a takeover or is refused.
func (s *Store) fence(ctx context.Context, tx pgx.Tx, session string) error {
	token, mine := s.held.Get(session)
	var owner string
	var current int64
	var expires time.Time
	var live bool
	err := tx.QueryRow(ctx, s.sql("SELECT owner, token, expires, expires > now() FROM {s}.toolcall_leases WHERE session = $1 FOR SHARE"), session).
		Scan(&owner, &current, &expires, &live)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	found := err == nil
	switch {
	case mine && (token == 0 || !found || !live || owner != s.owner || current != token):
		return fmt.Errorf("%w: the lease of session %q expired or was taken by another holder", agentkit.ErrLeaseLost, session)
	case !mine && found && live:
		return fmt.Errorf("%w: another holder leases session %q until %s", agentkit.ErrSessionBusy, session, expires.Format(time.RFC3339))
	}
	return nil
}
