package agentkit_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// mapLedger is an agentkit.Ledger in a map.
type mapLedger struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (l *mapLedger) Claim(_ context.Context, key string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keys[key] {
		return false, nil
	}
	if l.keys == nil {
		l.keys = map[string]bool{}
	}
	l.keys[key] = true
	return true, nil
}

// bank is the tools of the pause tests, counting how often each ran and with what.
type bank struct {
	transfers atomic.Int32 // the runs of transfer, which needs approval
	lookups   atomic.Int32 // the runs of lookup, which does not
	mu        sync.Mutex
	args      []string // transfer's arguments, as it ran
}

type transferArgs struct {
	To     string `json:"to"`
	Amount int    `json:"amount" jsonschema:"minimum=1"`
}

func (b *bank) transfer() *tool.Tool {
	return tool.New("transfer", "转账。", func(ctx context.Context, in transferArgs) (string, error) {
		b.transfers.Add(1)
		b.mu.Lock()
		b.args = append(b.args, in.To)
		b.mu.Unlock()
		return "已转账 " + in.To, nil
	}, tool.Options{RequireApproval: true})
}

func (b *bank) lookup() *tool.Tool {
	return tool.New("lookup", "查余额。", func(ctx context.Context, in struct{}) (string, error) {
		b.lookups.Add(1)
		return "余额 1000", nil
	})
}

// browser is a deferred tool: the application runs it.
var browser = tool.Deferred[struct {
	URL string `json:"url"`
}]("open_page", "在用户的浏览器里打开网页。")

// pauseTurn is the model's paused turn in most tests: two transfers needing approval and a
// lookup between them.
func pauseTurn() agentkittest.Reply {
	return agentkittest.ToolCalls(
		agentkittest.CallID("call_a", "transfer", `{"to":"alice","amount":10}`),
		agentkittest.CallID("call_l", "lookup", `{}`),
		agentkittest.CallID("call_b", "transfer", `{ "to" : "bob", "amount" : 20 }`),
	)
}

// paused runs the agent on model until it pauses, and returns the pause.
func paused(t *testing.T, a *agentkit.Agent) *agentkit.Pause {
	t.Helper()
	res, err := a.Run(context.Background(), "给 alice 和 bob 转账")
	if res.Stop != agentkit.StopPaused || res.Pause == nil {
		t.Fatalf("Run = %q, %v; want a pause", res.Stop, err)
	}
	return res.Pause
}
