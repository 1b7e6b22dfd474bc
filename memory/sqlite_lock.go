package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolcall/toolcall/agentkit"
)

// Lock holds the session for one run: first against the runs of this *SQLite (waiting in
// line), then against other processes through a lease row in the locks table (polling until
// the holder releases it or its lease expires). While held, the lease is renewed every third
// of SQLiteOptions.LockLease by a goroutine that unlock stops. unlock may be called more
// than once.
func (s *SQLite) Lock(ctx context.Context, session string) (unlock func(), err error) {
	local, err := s.locks.lock(ctx, session)
	if err != nil {
		return nil, err
	}
	wait := 20 * time.Millisecond
	for {
		until, err := s.tryLease(ctx, session)
		if err != nil {
			local()
			return nil, fmt.Errorf("memory: locking session %q: %w", session, err)
		}
		if until.IsZero() {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
			wait = min(2*wait, time.Second)
		case <-ctx.Done():
			t.Stop()
			local()
			return nil, fmt.Errorf("memory: waiting for session %q, leased by another process until %s: %w: %w",
				session, until.Format(time.RFC3339), agentkit.ErrSessionBusy, ctx.Err())
		}
	}

	stop, done := make(chan struct{}), make(chan struct{})
	go s.renew(session, stop, done)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			ctx, cancel := context.WithTimeout(context.Background(), s.lease)
			defer cancel()
			if s.acquireWrite(ctx) == nil {
				s.db.ExecContext(ctx, "DELETE FROM locks WHERE session = ? AND owner = ?", session, s.owner)
				s.releaseWrite()
			}
			local()
		})
	}, nil
}

// tryLease takes the session's lease when it is free or expired. Otherwise it returns when
// the other holder's lease expires.
func (s *SQLite) tryLease(ctx context.Context, session string) (heldUntil time.Time, err error) {
	if err := s.acquireWrite(ctx); err != nil {
		return time.Time{}, err
	}
	defer s.releaseWrite()
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		now := time.Now()
		var owner string
		var expires int64
		err := tx.QueryRowContext(ctx, "SELECT owner, expires FROM locks WHERE session = ?", session).Scan(&owner, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case owner != s.owner && expires > now.UnixMilli():
			heldUntil = time.UnixMilli(expires)
			return nil
		}
		_, err = tx.ExecContext(ctx, "INSERT OR REPLACE INTO locks (session, owner, expires) VALUES (?, ?, ?)",
			session, s.owner, now.Add(s.lease).UnixMilli())
		return err
	})
	return heldUntil, err
}

// renew extends the session's lease until stop is closed.
func (s *SQLite) renew(session string, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(s.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
			if s.acquireWrite(ctx) == nil {
				s.db.ExecContext(ctx, "UPDATE locks SET expires = ? WHERE session = ? AND owner = ?",
					time.Now().Add(s.lease).UnixMilli(), session, s.owner)
				s.releaseWrite()
			}
			cancel()
		}
	}
}
