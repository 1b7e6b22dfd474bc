// Package lease is what the session stores' SessionLockers share (memory/sqlite,
// memory/postgres, memory/redis): the leases a store holds, and the hold of one — renewed
// every third of its duration by a goroutine until unlock, marked lost when a renewal finds
// it gone, so that the store's Append refuses. How a lease is taken, renewed, released and
// checked is each store's own (a row with a token, a key with a token and a nonce).
package lease

import (
	"sync"
	"time"
)

// Held is the leases a store holds, by session: T is a lease's identity (a fencing token, a
// key's value), its zero value a lease lost. Its zero value is empty and ready to use.
type Held[T comparable] struct {
	mu sync.Mutex
	m  map[string]T
}

// Get returns the session's lease: held is false when the store holds none, and lease is
// the zero T when the store held one and lost it.
func (h *Held[T]) Get(session string) (lease T, held bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lease, held = h.m[session]
	return lease, held
}

func (h *Held[T]) set(session string, lease T) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]T{}
	}
	h.m[session] = lease
}

// lose marks lease lost, if it is still the session's.
func (h *Held[T]) lose(session string, lease T) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur, ok := h.m[session]; ok && cur == lease {
		var zero T
		h.m[session] = zero
	}
}

func (h *Held[T]) forget(session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, session)
}

// Hold records lease, just taken for session, in h and renews it every period with renew
// until unlock; a renewal that reports false (the lease is gone: expired, taken) marks it
// lost and ends the renewals. unlock stops them, forgets the lease, calls release (the
// store's own release of the lease, which may fail: the lease then expires) and then local
// (the store's in-process lock). unlock may be called more than once.
func Hold[T comparable](h *Held[T], session string, lease T, period time.Duration, renew func(T) bool, release func(T), local func()) (unlock func()) {
	h.set(session, lease)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if !renew(lease) {
					h.lose(session, lease)
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			<-done
			h.forget(session)
			release(lease)
			local()
		})
	}
}
