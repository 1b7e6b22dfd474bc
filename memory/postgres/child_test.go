package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory/postgres"
	"github.com/toolcall/toolcall/memory/postgres/internal/pgtest"
	"github.com/toolcall/toolcall/tool"
)

// The child processes of the fault tests: this test binary run again, in a mode
// (pgtest.ChildCommand). In a normal run TestChild skips.

const (
	batchSize  = 200     // messages per Append of the "append" child
	filler     = 4 << 10 // bytes of content per tool result: a batch is about 400 KB
	childApp   = "toolcall-child"
	raceTurn   = 4 // messages per run of the "run" child: question, call, result, answer
	raceSessID = "race"
)

func TestChild(t *testing.T) {
	mode, ok := pgtest.Child()
	if !ok {
		t.Skip("the child process of the fault tests (PGTEST_CHILD)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := openOn(t, withApp(t, pgtest.ChildDatabase()), nil)
	switch mode {
	case "append":
		appendForever(ctx, t, s)
	case "run":
		runOnce(ctx, t, s, os.Getenv("PGTEST_ID"))
	default:
		t.Fatalf("unknown child mode %q", mode)
	}
}

// withApp sets the application_name of the child's connections, so that its parent sees
// them in pg_stat_activity.
func withApp(t *testing.T, dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", childApp)
	u.RawQuery = q.Encode()
	return u.String()
}

// batch returns the n-th batch of the "append" child: a user message and steps of a call and
// its result, every message naming its batch.
func batch(n int) []openai.ChatCompletionMessage {
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: fmt.Sprintf("batch %d", n)}}
	for k := 0; len(msgs) < batchSize-1; k++ {
		id := fmt.Sprintf("call_%d_%d", n, k)
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: fmt.Sprintf("batch %d", n),
				ToolCalls: []openai.ToolCall{{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "f", Arguments: "{}"}}}},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: id,
				Content: fmt.Sprintf("batch %d ", n) + strings.Repeat("x", filler)})
	}
	return append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: fmt.Sprintf("batch %d done", n)})
}

// appendForever appends batches and says so on stdout after each one is acknowledged,
// until it is killed.
func appendForever(ctx context.Context, t *testing.T, s *postgres.Store) {
	start := 0
	if msgs, err := s.Load(ctx, "big"); err == nil {
		start = len(msgs) / batchSize
	}
	for n := start; ctx.Err() == nil; n++ {
		if err := s.Append(ctx, "big", batch(n)); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("acked %d\n", n)
	}
}

// runOnce runs one turn of the session raceSessID, which calls a tool: four messages, each
// naming id.
func runOnce(ctx context.Context, t *testing.T, s *postgres.Store, id string) {
	echo := tool.New("echo", "Echoes.", func(ctx context.Context, in struct {
		Who string `json:"who"`
	}) (string, error) {
		time.Sleep(5 * time.Millisecond) // a tool that takes a while: a window for another run
		return "result of " + in.Who, nil
	})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.CallID("call_"+id, "echo", fmt.Sprintf(`{"who":%q}`, id))),
		agentkittest.Text("answer of "+id))
	agent := agentkit.New(model, &agentkit.Options{Memory: s, Tools: []*tool.Tool{echo}})
	res, err := agent.RunSession(ctx, raceSessID, "question of "+id)
	if err != nil {
		t.Fatalf("RunSession: %v (stop %q)", err, res.Stop)
	}
}
