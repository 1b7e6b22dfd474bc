package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/internal/lease"
)

// Lock holds the session for one run: first against the runs of this *Store (waiting in
// line), then against other processes through a lease row in the locks table (polling until
// the holder releases it or its lease expires, or until another process's write of the file
// ends). When ctx is done first the error wraps agentkit.ErrSessionBusy and ctx.Err(). While held, the lease is renewed every third
// of Options.LockLease by a goroutine that unlock stops. unlock may be called more
// than once.
func (s *Store) Lock(ctx context.Context, session string) (unlock func(), err error) {
	local, err := s.locks.Lock(ctx, session)
	if err != nil {
		return nil, err
	}
	wait := 20 * time.Millisecond
	var token int64
	// held is until when another process holds the session, as the last try saw it. It
	// outlives the try: ctx may end during the next one, which then fails with ctx's error.
	var held time.Time
	for {
		until, tok, err := s.tryLease(ctx, session)
		switch {
		case err != nil && ctx.Err() != nil:
			local()
			return nil, waitError(session, held, ctx.Err())
		case busy(err): // another process writes the file for longer than BusyTimeout: wait
			held = time.Now()
		case err != nil:
			local()
			return nil, fmt.Errorf("sqlite: locking session %q: %w", session, err)
		case until.IsZero():
			token = tok
		default:
			held = until
		}
		if token != 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
			wait = min(2*wait, time.Second)
		case <-ctx.Done():
			t.Stop()
			local()
			return nil, waitError(session, held, ctx.Err())
		}
	}

	release := func(token int64) {
		ctx, cancel := context.WithTimeout(context.Background(), s.lease)
		defer cancel()
		if s.acquireWrite(ctx) == nil {
			// Expired, not deleted: the next lease's token is one more than this one's.
			s.db.ExecContext(ctx, "UPDATE locks SET expires = 0 WHERE session = ? AND owner = ? AND token = ?", session, s.owner, token)
			s.releaseWrite()
		}
	}
	renew := func(token int64) bool { return s.renewOnce(session, token) }
	return lease.Hold(&s.held, session, token, s.lease/3, renew, release, local), nil
}

// waitError is the error of a Lock whose ctx ended (with ctxErr) while it waited for the
// session, held by another process until held as last seen (zero when Lock saw no holder).
func waitError(session string, held time.Time, ctxErr error) error {
	if held.IsZero() {
		return fmt.Errorf("sqlite: waiting for session %q: %w: %w", session, agentkit.ErrSessionBusy, ctxErr)
	}
	return fmt.Errorf("sqlite: waiting for session %q, leased by another process until %s: %w: %w",
		session, held.Format(time.RFC3339), agentkit.ErrSessionBusy, ctxErr)
}

// tryLease takes the session's lease, with the next fencing token, when it is free or
// expired. Otherwise it returns when the other holder's lease expires.
func (s *Store) tryLease(ctx context.Context, session string) (heldUntil time.Time, token int64, err error) {
	if err := s.acquireWrite(ctx); err != nil {
		return time.Time{}, 0, err
	}
	defer s.releaseWrite()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		now := time.Now()
		var owner string
		var expires int64
		err := tx.QueryRowContext(ctx, "SELECT owner, expires, token FROM locks WHERE session = ?", session).Scan(&owner, &expires, &token)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case owner != s.owner && expires > now.UnixMilli():
			heldUntil = time.UnixMilli(expires)
			return nil
		}
		// Free, expired, or this *Store's own (whose runs of the session wait in line in
		// s.locks): a new lease, whose new token fences out whoever held the last one.
		token++
		_, err = tx.ExecContext(ctx, "INSERT OR REPLACE INTO locks (session, owner, expires, token) VALUES (?, ?, ?, ?)",
			session, s.owner, now.Add(s.lease).UnixMilli(), token)
		return err
	})
	return heldUntil, token, err
}

// renewOnce extends the lease of token, if it is still live, and reports false when it is
// not. A renewal that cannot reach the database is tried again at the next tick.
func (s *Store) renewOnce(session string, token int64) bool {
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	if s.acquireWrite(ctx) != nil {
		return true
	}
	defer s.releaseWrite()
	now := time.Now()
	res, err := s.db.ExecContext(ctx, "UPDATE locks SET expires = ? WHERE session = ? AND owner = ? AND token = ? AND expires > ?",
		now.Add(s.lease).UnixMilli(), session, s.owner, token, now.UnixMilli())
	if err != nil {
		return true
	}
	n, err := res.RowsAffected()
	return err != nil || n > 0
}

// fence refuses, in an Append's transaction, an append to a session whose lease this
// *Store lost, or that another holder leases.
func (s *Store) fence(ctx context.Context, tx *sql.Tx, session string) error {
	token, mine := s.held.Get(session)
	var owner string
	var expires, current int64
	err := tx.QueryRowContext(ctx, "SELECT owner, expires, token FROM locks WHERE session = ?", session).Scan(&owner, &expires, &current)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	live := err == nil && expires > time.Now().UnixMilli()
	switch {
	case mine && (token == 0 || !live || owner != s.owner || current != token):
		return fmt.Errorf("%w: the lease of session %q expired or was taken by another holder", agentkit.ErrLeaseLost, session)
	case !mine && live:
		return fmt.Errorf("%w: another holder leases session %q until %s", agentkit.ErrSessionBusy, session, time.UnixMilli(expires).Format(time.RFC3339))
	}
	return nil
}

// busy reports whether err is SQLite's SQLITE_BUSY: the file stayed locked by another writer
// for longer than Options.BusyTimeout.
func busy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}
