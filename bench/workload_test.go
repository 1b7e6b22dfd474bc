package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/measure"
	"github.com/toolcall/toolcall/memory"
)

// TestWorkloads runs every workload once through every framework, in process and through
// HTTP, and checks the answers, so that the benchmarks measure runs that work.
func TestWorkloads(t *testing.T) {
	ctx := measure.Context(t)
	for _, fw := range Frameworks() {
		for _, overHTTP := range []bool{false, true} {
			name := fw.Name
			if overHTTP {
				name += "/http"
			}
			t.Run(name, func(t *testing.T) { checkWorkloads(t, ctx, fw, overHTTP) })
		}
	}
}

func checkWorkloads(t *testing.T, ctx context.Context, fw Framework, overHTTP bool) {
	cases := []struct {
		name  string
		s     *script.Script
		input string
		want  string
	}{
		{"round", script.Round(), script.Input, "83699.1"},
		{"sleep1", script.Sleeps(1), "sleep", "done"},
		{"sleep8", script.Sleeps(8), "sleep", "done"},
		{"chain", script.Chain(script.ChainLength), "chain", "ended at 20"},
	}
	for _, c := range cases {
		run := fw.Agent(c.s, measure.Endpoint(t, c.s, overHTTP))
		for i := range 2 { // twice: responses built once must survive a run
			start := time.Now()
			out, err := run(ctx, c.input)
			if err != nil || !strings.Contains(out, c.want) {
				t.Errorf("%s, run %d: got %q, %v; want an answer containing %q", c.name, i+1, out, err, c.want)
			}
			t.Logf("%s, run %d: %v", c.name, i+1, time.Since(start).Round(time.Millisecond))
		}
	}
	if testing.Short() {
		return
	}
	conv := script.NewConversation(script.ConversationTurns)
	for _, v := range fw.Conversations {
		run := v.New(conv, measure.Endpoint(t, conv.Script, overHTTP))
		runs := 2
		if overHTTP {
			runs = 1 // the same code as in process, with a slower model
		}
		for i := range runs {
			start := time.Now()
			if err := run(ctx); err != nil {
				t.Errorf("conversation %s, run %d: %v", v.Name, i+1, err)
			}
			t.Logf("conversation %s, run %d: %v", v.Name, i+1, time.Since(start).Round(time.Millisecond))
		}
		if n := conv.Misses.Load(); n > 0 {
			t.Errorf("conversation %s: %d requests without a known user message", v.Name, n)
		}
	}
}

// TestFloorTools checks that the hand-written floor sends the tool definitions toolcall sends
// for the same tools, so that their requests cost the same to encode.
func TestFloorTools(t *testing.T) {
	ctx := measure.Context(t)
	tools := func(fw Framework) []any {
		s := script.Round()
		rec := &toolsRecorder{next: script.Handler(s)}
		srv := httptest.NewServer(rec)
		defer srv.Close()
		if _, err := fw.Agent(s, srv.URL+"/v1")(ctx, script.Input); err != nil {
			t.Fatalf("%s: %v", fw.Name, err)
		}
		return rec.tools
	}
	got, want := tools(HandWritten()), tools(Toolcall())
	if diff := cmp.Diff(want, got); diff != "" || len(got) == 0 {
		t.Errorf("the floor's tools (-toolcall's +the floor's):\n%s", diff)
	}
}

// toolsRecorder keeps the "tools" of the first request it serves.
type toolsRecorder struct {
	next  http.Handler
	once  sync.Once
	tools []any
}

func (r *toolsRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.once.Do(func() {
		var v struct{ Tools []any }
		_ = json.Unmarshal(body, &v)
		r.tools = v.Tools
	})
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.next.ServeHTTP(w, req)
}

// TestWindowTurns checks script.WindowTurns: about as many turns as memory.Window keeps within
// WindowBudget at the end of the conversation, so that the peers' turn- or item-count limits
// send about as much as toolcall does.
func TestWindowTurns(t *testing.T) {
	c := script.NewConversation(script.ConversationTurns)
	msgs := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: script.Instructions}}
	for i, in := range c.Inputs {
		call, answer := c.Replies[2*i].Calls[0], c.Replies[2*i+1].Text
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: in},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: call.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: call.Name, Arguments: call.Args}}}},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: call.ID, Content: script.Weather(call.Map["city"].(string))},
			openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: answer},
		)
	}
	view, err := memory.Window(memory.WindowOptions{Budget: WindowBudget, Counter: memory.NewCounter("gpt-4o-mini")}).Apply(measure.Context(t), "", msgs)
	if err != nil {
		t.Fatal(err)
	}
	turns := 0
	for _, m := range view {
		if m.Role == openai.ChatMessageRoleUser {
			turns++
		}
	}
	turns-- // the first user message is always kept
	t.Logf("memory.Window(%d) keeps %d of %d turns (%d of %d messages)", WindowBudget, turns, len(c.Inputs), len(view), len(msgs))
	if turns < script.WindowTurns*3/4 || turns > script.WindowTurns*5/4 {
		t.Errorf("Window keeps %d turns; script.WindowTurns is %d: adjust it", turns, script.WindowTurns)
	}
}
