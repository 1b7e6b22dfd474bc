package redis_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/redis"
	"github.com/toolcall/toolcall/memory/redis/internal/redistest"
	"github.com/toolcall/toolcall/tool"
)

// twoProcesses returns two Stores on one prefix, each with its own client (its own pool of
// connections), as two processes of a fleet have, with opts for the first; and a client
// for looking at the keys.
func twoProcesses(t *testing.T, opts *redis.Options) (a, b *redis.Store, raw *goredis.Client, prefix string) {
	t.Helper()
	srv := redistest.Shared(t)
	prefix = redistest.Prefix()
	var o redis.Options
	if opts != nil {
		o = *opts
	}
	o.Prefix = prefix
	var err error
	if a, err = redis.New(context.Background(), srv.Client(t, nil), &o); err != nil {
		t.Fatal(err)
	}
	if b, err = redis.New(context.Background(), srv.Client(t, nil), &redis.Options{Prefix: prefix, LockLease: 1200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	return a, b, srv.Client(t, nil), prefix
}

// Two processes, one session: the lease refuses the second until the first unlocks, a
// renewed lease holds past many lease periods, and every lease's token is one more than the
// last.
func TestLockAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	a, b, raw, prefix := twoProcesses(t, &redis.Options{LockLease: 1200 * time.Millisecond})
	token := func() int64 {
		t.Helper()
		n, err := raw.Get(ctx, prefix+"{s:s}:fence").Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	unlock, err := a.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	first := token()
	wctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	_, err = b.Lock(wctx, "s")
	cancel()
	if !errors.Is(err, agentkit.ErrSessionBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock from another process = %v, want ErrSessionBusy and DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "another process") {
		t.Errorf("error %q does not say who holds the session", err)
	}
	// An Append of the other process, which holds no lease, is refused while a holds it.
	if err := b.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("intruder")}); !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Errorf("Append by a non-holder while another holds the session = %v, want ErrSessionBusy", err)
	}
	// The waiter gets the session when the holder unlocks.
	done := make(chan error, 1)
	go func() {
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		u, err := b.Lock(wctx, "s")
		if err == nil {
			u()
		}
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	unlock()
	unlock() // twice is harmless
	if err := <-done; err != nil {
		t.Fatalf("Lock after the other process unlocked: %v", err)
	}
	if got, want := token(), first+1; got != want {
		t.Errorf("the second lease's token = %d, want %d", got, want)
	}

	// b holds it past 2.5 lease periods: renewal keeps a out.
	ub, err := b.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	wctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
	ua, err := a.Lock(wctx, "s")
	cancel()
	if err == nil {
		ua()
	}
	if !errors.Is(err, agentkit.ErrSessionBusy) {
		t.Fatalf("Lock while the holder renews its lease = %v, want ErrSessionBusy", err)
	}
	if err := b.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("by the holder")}); err != nil {
		t.Errorf("Append by the holder of a renewed lease: %v", err)
	}
	ub()
	if n, err := raw.Exists(ctx, prefix+"{s:s}:lease").Result(); err != nil || n != 0 {
		t.Errorf("the lease is still there after unlock: %d, %v", n, err)
	}
}

// A holder paused past its lease (its renewals skipped) loses the session to another
// process, and then cannot append (ErrLeaseLost); its unlock leaves the new holder's lease
// alone.
func TestLeaseLost(t *testing.T) {
	ctx := context.Background()
	var paused atomic.Bool
	var o redis.Options
	o.LockLease = 300 * time.Millisecond
	redis.SetSkipRenew(&o, func(string) bool { return paused.Load() })
	a, b, raw, prefix := twoProcesses(t, &o)

	ua, err := a.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	step := append([]openai.ChatCompletionMessage{memorytest.User("q")}, memorytest.Step("call_a", 1)...)
	if err := a.Append(ctx, "s", step); err != nil {
		t.Fatalf("Append under a live lease: %v", err)
	}
	paused.Store(true)
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	ub, err := b.Lock(wctx, "s")
	cancel()
	if err != nil {
		t.Fatalf("Lock after the holder's lease expired: %v", err)
	}
	tests := []struct {
		name  string
		store *redis.Store
		want  error
	}{
		{"the paused holder", a, agentkit.ErrLeaseLost},
		{"the paused holder again", a, agentkit.ErrLeaseLost},
		{"the new holder", b, nil},
	}
	for i, tt := range tests {
		err := tt.store.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.Assistant("from " + strconv.Itoa(i))})
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("Append by %s = %v, want %v", tt.name, err, tt.want)
		}
	}
	ua() // the lost lease's unlock: b's lease stays
	if n, err := raw.Exists(ctx, prefix+"{s:s}:lease").Result(); err != nil || n != 1 {
		t.Errorf("the new holder's lease after the old holder's unlock: exists %d, %v", n, err)
	}
	ub()
	got, err := b.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	want := append(step, memorytest.Assistant("from 2"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the session (-want +got):\n%s", diff)
	}
}

// A RunSession whose process paused past its lease while the model answered, and whose
// session another process took, ends with StopMemoryError and an error wrapping
// ErrLeaseLost; what it produced after the lease was lost never lands.
func TestRunSessionLosesItsLease(t *testing.T) {
	ctx := context.Background()
	var paused atomic.Bool
	var o redis.Options
	o.LockLease = 300 * time.Millisecond
	redis.SetSkipRenew(&o, func(string) bool { return paused.Load() })
	a, b, _, _ := twoProcesses(t, &o)
	weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return in.City + "：晴", nil
	})
	taken := make(chan func(), 1)
	model := agentkittest.New(t, agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
		// The process pauses: its lease expires and the other process takes the session.
		paused.Store(true)
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		u, err := b.Lock(wctx, "s")
		if err != nil {
			t.Errorf("the other process's Lock: %v", err)
		}
		taken <- u
		return agentkittest.ToolCalls(agentkittest.CallID("call_1", "get_weather", `{"city":"北京"}`))
	}))
	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, Memory: a})
	res, err := agent.RunSession(ctx, "s", "北京天气怎么样？")
	if u := <-taken; u != nil {
		defer u()
	}
	if !errors.Is(err, agentkit.ErrLeaseLost) || res.Stop != agentkit.StopMemoryError {
		t.Fatalf("RunSession = %v (stop %s), want StopMemoryError and an error wrapping ErrLeaseLost", err, res.Stop)
	}
	t.Logf("the run's error: %v", err)
	got, err := b.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	want := []openai.ChatCompletionMessage{memorytest.User("北京天气怎么样？")} // appended before the pause
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the session after the lost run (-want +got):\n%s", diff)
	}
}

// A Redis that lost its data (restarted without persistence) counts fencing tokens from 1
// again: the old holder's lease, token 1, must not pass for the new holder's, token 1 too.
func TestLeaseAfterDataLoss(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	a, err := redis.New(ctx, srv.Client(t, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	ua, err := a.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer ua()
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	b, err := redis.New(ctx, srv.Client(t, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	ub, err := b.Lock(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer ub()
	raw := srv.Client(t, nil)
	if tok, err := raw.Get(ctx, "toolcall:{s:s}:fence").Result(); err != nil || tok != "1" {
		t.Fatalf("the new holder's token = %q, %v; want 1 again", tok, err)
	}
	if err := a.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("old holder")}); !errors.Is(err, agentkit.ErrLeaseLost) {
		t.Errorf("Append by the holder from before the data loss = %v, want ErrLeaseLost", err)
	}
	if err := b.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("new holder")}); err != nil {
		t.Errorf("Append by the new holder: %v", err)
	}
}
