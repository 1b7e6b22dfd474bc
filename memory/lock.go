package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/toolcall/toolcall/agentkit"
)

// lockTable serializes the runs of each session within one process. A waiter gives up when
// its context is done. Entries are removed when nobody holds or waits for them, so the
// table stays as small as the number of sessions in use.
type lockTable struct {
	mu sync.Mutex
	m  map[string]*sessionLock
}

type sessionLock struct {
	held chan struct{} // a token in the channel: the lock is held
	refs int           // holders and waiters
}

// lock waits for the session's lock. The returned unlock may be called more than once.
func (t *lockTable) lock(ctx context.Context, session string) (unlock func(), err error) {
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

func (t *lockTable) release(session string, l *sessionLock) {
	t.mu.Lock()
	l.refs--
	if l.refs == 0 {
		delete(t.m, session)
	}
	t.mu.Unlock()
}
