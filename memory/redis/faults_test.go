package redis_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory/redis"
	"github.com/toolcall/toolcall/memory/redis/internal/redistest"
	"github.com/toolcall/toolcall/tool"
)

// The server restarted, crashed, or down, between two appends of a RunSession. Without persistence
// (--save ”, --appendonly no) a restart loses everything, the run's lease with it: the run
// ends with ErrLeaseLost. With an append-only file fsynced at every write, the lease and
// every acknowledged append survive the restart, or a SIGKILL of the server, and the run completes (go-redis reconnects;
// the batch id keeps a resent append from landing twice). With the server down during the
// append, the run fails clearly and what was acknowledged before is there once it is back.
// Either way, the session loaded after is provider-valid.
func TestServerRestartMidRun(t *testing.T) {
	aof := []string{"--appendonly", "yes", "--appendfsync", "always"}
	tests := []struct {
		name     string
		args     []string
		fault    func(srv *redistest.Server) error
		wantErr  error // nil: the run completes
		wantKept int   // messages of the session after the fault and a restart
	}{
		{"restart, no persistence", nil, (*redistest.Server).Restart, agentkit.ErrLeaseLost, 0},
		{"restart, append-only file", aof, (*redistest.Server).Restart, nil, 6},
		{"crash (SIGKILL), append-only file", aof, (*redistest.Server).Crash, nil, 6},
		{"down during an append, append-only file", aof, func(srv *redistest.Server) error { srv.Stop(); return nil }, errDown, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := redistest.Start(t, tt.args...)
			store, err := redis.New(ctx, srv.Client(t, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
				City string `json:"city"`
			}) (string, error) {
				return in.City + "：晴", nil
			})
			model := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.CallID("call_1", "get_weather", `{"city":"北京"}`)),
				agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
					if err := tt.fault(srv); err != nil {
						t.Error(err)
					}
					return agentkittest.ToolCalls(agentkittest.CallID("call_2", "get_weather", `{"city":"上海"}`))
				}),
				agentkittest.Text("北京和上海都晴。"))
			agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, Memory: store})
			res, err := agent.RunSession(ctx, "s", "北京和上海天气怎么样？")
			switch {
			case tt.wantErr == errDown:
				if err == nil || res.Stop != agentkit.StopMemoryError || !strings.Contains(err.Error(), "saving session") {
					t.Fatalf("RunSession with the server down = %v (stop %s), want StopMemoryError saving the session", err, res.Stop)
				}
				t.Logf("the run's error: %v", err)
				if err := srv.Start(); err != nil {
					t.Fatal(err)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) || res.Stop != agentkit.StopMemoryError {
					t.Fatalf("RunSession = %v (stop %s), want StopMemoryError and %v", err, res.Stop, tt.wantErr)
				}
			case err != nil:
				t.Fatalf("RunSession: %v", err)
			}
			if err := srv.Restart(); err != nil { // what is kept is what survives one more restart
				t.Fatal(err)
			}
			got, err := store.Load(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if err := agentkit.ValidateHistory(got); err != nil {
				t.Errorf("the session after the fault is not provider-valid: %v", err)
			}
			if len(got) != tt.wantKept {
				t.Fatalf("the session after the fault has %d messages, want %d:\n%s", len(got), tt.wantKept, agentkit.FormatTranscript(got))
			}
			if diff := cmp.Diff(res.Messages[:tt.wantKept], got); diff != "" {
				t.Errorf("the session is not what the run acknowledged (-want +got):\n%s", diff)
			}
		})
	}
}

var errDown = errors.New("the server is down")

// A process killed (SIGKILL) while it appends batches of about 1 MiB leaves every batch
// whole or absent: the session is bigBatch(0), bigBatch(1)… through the last acknowledged,
// and at most the one being sent, each whole.
func TestClientKilledMidAppend(t *testing.T) {
	srv := redistest.Shared(t)
	for round, delay := range []time.Duration{0, 2 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, time.Duration(rand.IntN(50000)) * time.Microsecond} {
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			prefix := redistest.Prefix()
			cmd, out := startChild(t, "append-loop", srv.Addr, prefix, 0)
			acked := -1
			for acked < 2 && out.Scan() {
				acked, _ = strconv.Atoi(strings.TrimPrefix(out.Text(), "acked "))
			}
			if acked < 2 {
				t.Fatalf("the child stopped before 3 appends (last acked %d)", acked)
			}
			time.Sleep(delay)
			cmd.Process.Signal(syscall.SIGKILL)
			for out.Scan() { // what it acknowledged before it died
				acked, _ = strconv.Atoi(strings.TrimPrefix(out.Text(), "acked "))
			}
			cmd.Wait()
			store, err := redis.New(context.Background(), srv.Client(t, nil), &redis.Options{Prefix: prefix})
			if err != nil {
				t.Fatal(err)
			}
			got, err := store.Load(context.Background(), "big")
			if err != nil {
				t.Fatal(err)
			}
			per := len(bigBatch(0))
			if len(got)%per != 0 {
				t.Fatalf("%d messages, not whole batches of %d: a batch was half written", len(got), per)
			}
			n := len(got) / per
			// Every acknowledged batch, and at most the one it was sending when killed.
			if n != acked+1 && n != acked+2 {
				t.Errorf("%d batches, the child acknowledged %d", n, acked+1)
			}
			t.Logf("%d batches acknowledged, %d stored", acked+1, n)
			for k := range n {
				if diff := cmp.Diff(bigBatch(k), got[k*per:(k+1)*per]); diff != "" {
					t.Fatalf("batch %d (-want +got):\n%s", k, diff)
				}
			}
			if err := agentkit.ValidateHistory(got); err != nil {
				t.Error(err)
			}
		})
	}
}

// 8 processes run RunSession on one session at once: the runs are serialized (each turn
// whole, of one process), none is lost, the session is provider-valid.
func TestEightProcessesRace(t *testing.T) {
	srv := redistest.Shared(t)
	prefix := redistest.Prefix()
	const procs = 8
	var wg sync.WaitGroup
	for i := range procs {
		cmd, _ := startChild(t, "run-session", srv.Addr, prefix, i)
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				t.Errorf("child %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	store, err := redis.New(context.Background(), srv.Client(t, nil), &redis.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.Load(context.Background(), "race")
	if err != nil {
		t.Fatal(err)
	}
	if err := agentkit.ValidateHistory(got); err != nil {
		t.Errorf("the raced session is not provider-valid: %v", err)
	}
	// Who wrote each message, and, turn by turn, whose turn it is.
	var owners, want, procsSeen []string
	var turn string
	for _, m := range got {
		owner := ownerOf(m)
		if m.Role == openai.ChatMessageRoleUser {
			turn = owner
			procsSeen = append(procsSeen, owner)
		}
		owners = append(owners, owner)
		want = append(want, turn)
	}
	if diff := cmp.Diff(want, owners); diff != "" {
		t.Errorf("turns interleaved: the writer of each message vs its turn's (-turn +writer):\n%s", diff)
	}
	slices.Sort(procsSeen)
	var all []string
	for i := range procs {
		all = append(all, "p"+strconv.Itoa(i))
	}
	if diff := cmp.Diff(all, procsSeen); diff != "" {
		t.Errorf("the turns of the processes (-want +got):\n%s", diff)
	}
	if len(got) != procs*6 {
		t.Errorf("%d messages, want %d: 6 for each run", len(got), procs*6)
	}
}

// ownerOf returns the process ("p3") whose run wrote m, from what it names.
func ownerOf(m openai.ChatCompletionMessage) string {
	text := m.Content + m.ToolCallID
	for _, c := range m.ToolCalls {
		text += " " + c.ID
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '_' }) {
		if len(f) == 2 && f[0] == 'p' && f[1] >= '0' && f[1] <= '9' {
			return f
		}
	}
	return "?" + text
}

// With the client's only connection held by a blocking command, an operation waits a
// bounded time and fails clearly: its context's deadline, or the pool's timeout.
func TestPoolExhausted(t *testing.T) {
	srv := redistest.Shared(t)
	prefix := redistest.Prefix()
	c := srv.Client(t, &goredis.Options{PoolSize: 1, PoolTimeout: 300 * time.Millisecond})
	store, err := redis.New(context.Background(), c, &redis.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	blocked := make(chan error, 1)
	go func() { blocked <- c.BLPop(context.Background(), 30*time.Second, prefix+"release").Err() }()
	for c.PoolStats().TotalConns == 0 || c.PoolStats().IdleConns != 0 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the BLPOP is on the wire
	deadline := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 200*time.Millisecond)
	}
	nodeadline := func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		op   func(ctx context.Context) error
		want []error
	}{
		{"Load, deadline", deadline, func(ctx context.Context) error { _, err := store.Load(ctx, "s"); return err }, []error{context.DeadlineExceeded}},
		{"Append, deadline", deadline, func(ctx context.Context) error { return store.Append(ctx, "s", bigBatch(0)) }, []error{context.DeadlineExceeded}},
		{"Lock, deadline", deadline, func(ctx context.Context) error {
			u, err := store.Lock(ctx, "s")
			if err == nil {
				u()
			}
			return err
		}, []error{context.DeadlineExceeded, agentkit.ErrSessionBusy}},
		{"Load, no deadline", nodeadline, func(ctx context.Context) error { _, err := store.Load(ctx, "s"); return err }, []error{goredis.ErrPoolTimeout}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			err := tt.op(ctx)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("the operation waited %s for a connection", took)
			}
			for _, w := range tt.want {
				if !errors.Is(err, w) {
					t.Errorf("error = %v, want one wrapping %v", err, w)
				}
			}
			if err != nil && !strings.Contains(err.Error(), `session "s"`) {
				t.Errorf("error %q does not name the session", err)
			}
		})
	}
	srv.Client(t, nil).LPush(context.Background(), prefix+"release", "go")
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
}
