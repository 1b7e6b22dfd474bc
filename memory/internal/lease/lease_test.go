package lease

import (
	"sync/atomic"
	"testing"
	"time"
)

// A held lease is renewed until a renewal finds it gone, then marked lost (the zero value);
// unlock forgets it and releases it, then the in-process lock, once.
func TestHold(t *testing.T) {
	var h Held[int64]
	var renewals, releases, locals atomic.Int32
	renew := func(token int64) bool {
		if token != 7 {
			t.Errorf("renewed token %d, want 7", token)
		}
		return renewals.Add(1) < 3
	}
	unlock := Hold(&h, "s", 7, time.Millisecond, renew, func(int64) { releases.Add(1) }, func() { locals.Add(1) })
	if got, held := h.Get("s"); !held || got != 7 {
		t.Fatalf("Get after Hold = %d, %v; want 7, true", got, held)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, _ := h.Get("s"); got == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the lease was never marked lost")
		}
		time.Sleep(time.Millisecond)
	}
	unlock()
	unlock()
	if n := renewals.Load(); n != 3 {
		t.Errorf("%d renewals, want 3: none after the one that found the lease gone", n)
	}
	if r, l := releases.Load(), locals.Load(); r != 1 || l != 1 {
		t.Errorf("release ran %d times and local %d, want once each", r, l)
	}
	if _, held := h.Get("s"); held {
		t.Error("the lease is still held after unlock")
	}
}

// lose marks only the lease it names: a newer lease of the session stays.
func TestLoseOnlyItsOwn(t *testing.T) {
	var h Held[string]
	h.set("s", "2:b")
	h.lose("s", "1:a")
	if got, _ := h.Get("s"); got != "2:b" {
		t.Errorf("Get = %q after losing another lease, want 2:b", got)
	}
}
