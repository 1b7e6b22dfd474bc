package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// recorder records the arguments a tool's function received.
type recorder struct {
	mu    sync.Mutex
	calls []string // the arguments the function received
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
}

func (r *recorder) n() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

type transferIn struct {
	Account  string  `json:"account"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency" jsonschema:"enum=CNY,enum=USD,enum=EUR"`
	Memo     *struct {
		Note string `json:"note"`
	} `json:"memo,omitempty"`
}

// transferTool is a tool with a schema, whose function records its arguments and succeeds.
func transferTool(rec *recorder) *tool.Tool {
	return tool.New("transfer", "Transfer money to an account.", func(ctx context.Context, in transferIn) (string, error) {
		b, _ := json.Marshal(in)
		rec.add(string(b))
		return "done", nil
	})
}

// call returns a call of t with raw arguments.
func call(t *tool.Tool, args string) tool.Call {
	return tool.Call{ID: "call_1", Name: t.Name(), Arguments: args, Tool: t}
}

// fixed returns a handler that always returns res, counting its calls.
func fixed(res tool.Result, n *int) tool.Handler {
	return func(context.Context, tool.Call) tool.Result {
		if n != nil {
			*n++
		}
		return res
	}
}

// run applies mw to h and calls it once.
func run(mw tool.Middleware, h tool.Handler, c tool.Call) tool.Result {
	return mw(h)(context.Background(), c)
}

// sleeps records the waits asked of an injected Sleep, without sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
	// err, when set, is returned instead of waiting.
	err error
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	if s.err != nil {
		return s.err
	}
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

var errBackend = errors.New("backend unavailable")

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: did not panic", name)
		}
	}()
	f()
}

func errUnexpectedEOF() error { return io.ErrUnexpectedEOF }

// wrap returns m wrapped in mw, as an Agent wraps its model.
func wrap(mw agentkit.ModelMiddleware, m agentkit.Model) agentkit.Model {
	return agentkit.WrapModel(m, mw)
}

// repairedTransfer is arguments of transferTool that need a repair (a markdown fence, a
// trailing comma) and are valid after it.
const repairedTransfer = "```json\n{\"account\": \"12345678\", \"amount\": 10, \"currency\": \"CNY\",}\n```"

// clip shortens s for a failure message.
func clip(s string) string {
	if len(s) > 200 {
		return s[:100] + "…" + s[len(s)-100:]
	}
	return s
}

// dispatch stands for the agent loop's innermost handler.
func dispatch(ctx context.Context, c tool.Call) tool.Result {
	if c.Tool == nil {
		return tool.Failure(tool.KindUnknownTool, errors.New("unknown tool "+c.Name))
	}
	return c.Tool.Handle(ctx, c)
}
