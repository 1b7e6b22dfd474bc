package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/toolcall/toolcall/agentkit"
)

// Locks serializes the runs of each session within one process: it is InMemory's
// agentkit.SessionLocker, and the first half of the lock of a store that also locks across
// processes (package memory/sqlite), whose runs of one session then wait in line here rather
// than polling the shared lock.
//
// Entries are removed when nobody holds or waits for them, so a Locks stays as small as the
// number of sessions in use. The zero value is ready to use; a Locks must not be copied after
// first use. It is safe for concurrent use.
type Locks struct {
	mu sync.Mutex
	m  map[string]*sessionLock
}

var _ agentkit.SessionLocker = (*Locks)(nil)

type sessionLock struct {
	held chan struct{} // a token in the channel: the lock is held
	refs int           // holders and waiters
}

// Lock waits until no other run holds the session, then holds it until unlock is called;
// unlock may be called more than once. When ctx is done before the session is free, the
// error wraps both agentkit.ErrSessionBusy and ctx.Err(); when it is done already, the error
// wraps ctx.Err().
func (t *Locks) Lock(ctx context.Context, session string) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: locking session %q: %w", session, err)
	}
	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[string]*sessionLock)
	}
	l := t.m[session]
	if l == nil {
		l = &sessionLock{held: make(chan struct{}, 1)}
		t.m[session] = l
	}
	l.refs++
	t.mu.Unlock()

	select {
	case l.held <- struct{}{}:
	default:
		select {
		case l.held <- struct{}{}:
		case <-ctx.Done():
			t.release(session, l)
			return nil, fmt.Errorf("memory: waiting for session %q: %w: %w", session, agentkit.ErrSessionBusy, ctx.Err())
		}
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-l.held
			t.release(session, l)
		})
	}, nil
}

func (t *Locks) release(session string, l *sessionLock) {
	t.mu.Lock()
	l.refs--
	if l.refs == 0 {
		delete(t.m, session)
	}
	t.mu.Unlock()
}
