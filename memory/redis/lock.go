package redis

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/internal/lease"
)

// Lock holds the session for one run: first against the runs of this Store (waiting in
// line), then against other processes through a lease key, set with the next fencing token
// of the session (INCR of its counter) and an expiry of Options.LockLease. It polls a held
// lease until its holder releases it or it expires. When ctx is done first the error wraps
// agentkit.ErrSessionBusy and ctx.Err(). While held, the lease is renewed every third of
// LockLease by a goroutine that unlock stops; unlock deletes the lease if it is still this
// one's, and may be called more than once.
func (s *Store) Lock(ctx context.Context, session string) (unlock func(), err error) {
	local, err := s.locks.Lock(ctx, session)
	if err != nil {
		return nil, err
	}
	value, err := s.takeLease(ctx, session)
	if err != nil {
		local()
		return nil, err
	}
	release := func(value string) {
		ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
		defer cancel()
		// Failing, the lease expires on its own.
		releaseScript.Run(ctx, s.rdb, []string{s.key(session, "lease")}, value)
	}
	renew := func(value string) bool {
		return (s.skip != nil && s.skip(session)) || s.renewOnce(session, value)
	}
	return lease.Hold(&s.held, session, value, s.lease/3, renew, release, local), nil
}

// takeLease polls until the session's lease is free, and takes it. It returns the lease's
// value, "token:nonce": the nonce keeps the value unique when the counter starts again
// (a Redis that lost its data).
func (s *Store) takeLease(ctx context.Context, session string) (string, error) {
	keys := []string{s.key(session, "lease"), s.key(session, "fence")}
	nonce := rand.Text()
	wait := 10 * time.Millisecond
	var left time.Duration // how long the holder's lease had left, as last seen
	for {
		res, err := lockScript.Run(ctx, s.rdb, keys, nonce, s.lease.Milliseconds()).Int64Slice()
		switch {
		case err != nil && ctxErr(ctx) != nil:
			return "", waitError(session, left, ctxErr(ctx))
		case err != nil:
			return "", fmt.Errorf("redis: locking session %q: %w", session, err)
		case res[0] > 0:
			return fmt.Sprintf("%d:%s", res[0], nonce), nil
		}
		left = time.Duration(res[1]) * time.Millisecond
		t := time.NewTimer(wait)
		select {
		case <-t.C:
			wait = min(2*wait, 250*time.Millisecond, s.lease/3)
		case <-ctx.Done():
			t.Stop()
			return "", waitError(session, left, ctx.Err())
		}
	}
}

// waitError is the error of a Lock whose ctx ended (with ctxErr) while it waited for the
// session, whose lease had left to run as last seen (zero when Lock saw no holder).
func waitError(session string, left time.Duration, ctxErr error) error {
	if left <= 0 {
		return fmt.Errorf("redis: waiting for session %q: %w: %w", session, agentkit.ErrSessionBusy, ctxErr)
	}
	return fmt.Errorf("redis: waiting for session %q, leased by another process for another %s: %w: %w",
		session, left, agentkit.ErrSessionBusy, ctxErr)
}

// renewOnce extends the lease, if it is still this one, and reports false when it is not.
// A renewal that cannot reach Redis is tried again at the next tick.
func (s *Store) renewOnce(session, lease string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), s.lease/3)
	defer cancel()
	n, err := renewScript.Run(ctx, s.rdb, []string{s.key(session, "lease")}, lease, s.lease.Milliseconds()).Int64()
	return err != nil || n == 1
}
