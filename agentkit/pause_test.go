package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// A parallel turn with two calls needing approval pauses once, with both: its other call
// runs, the transcript left behind stays provider-valid (the assistant message with the
// unanswered calls is in the Pause only), and the Pause holds the canonical arguments.
func TestPauseParallelTurn(t *testing.T) {
	var b bank
	model := agentkittest.New(t, pauseTurn())
	a := agentkit.New(model, &agentkit.Options{Instructions: "你是银行助手。", Tools: []*tool.Tool{b.transfer(), b.lookup()}})
	res, err := a.Run(context.Background(), "给 alice 和 bob 转账")
	if !errors.Is(err, agentkit.ErrPaused) || res.Stop != agentkit.StopPaused {
		t.Fatalf("Run = %q, %v; want StopPaused, ErrPaused", res.Stop, err)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Errorf("the paused run's transcript does not validate: %v", err)
	}
	if got := len(res.Messages); got != 2 {
		t.Errorf("the paused run's transcript has %d messages, want 2 (system, user)", got)
	}
	p := res.Pause
	want := []agentkit.PendingCall{
		{ID: "call_a", Name: "transfer", Arguments: json.RawMessage(`{"to":"alice","amount":10}`), Kind: agentkit.PendingApproval},
		{ID: "call_b", Name: "transfer", Arguments: json.RawMessage(`{"to":"bob","amount":20}`), Kind: agentkit.PendingApproval},
	}
	if diff := cmp.Diff(want, p.Pending); diff != "" {
		t.Errorf("pending calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]agentkit.PausedResult{{ID: "call_l", Content: "余额 1000"}}, p.Results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if p.Version != 1 || p.ID == "" || p.Iteration != 1 || len(p.Messages) != 3 || p.MAC != nil {
		t.Errorf("Pause version %d, id %q, iteration %d, %d messages, MAC %x; want 1, an id, 1, 3, none", p.Version, p.ID, p.Iteration, len(p.Messages), p.MAC)
	}
	if b.transfers.Load() != 0 || b.lookups.Load() != 1 {
		t.Errorf("transfer ran %d times, lookup %d; want 0, 1", b.transfers.Load(), b.lookups.Load())
	}
}

// Every way of asking for a pause pauses: the tool's option, RequireApproval by annotation or
// by the application's predicate, a deferred tool.
func TestPauseSources(t *testing.T) {
	plain := func(name string, ann tool.Annotations) *tool.Tool {
		return tool.New(name, "做事。", func(ctx context.Context, in struct{}) (string, error) { return "ok", nil }, tool.Options{Annotations: ann})
	}
	tests := []struct {
		name     string
		tools    []*tool.Tool
		mw       []tool.Middleware
		call     string
		wantKind agentkit.PendingKind // "" for no pause
	}{
		{"option", []*tool.Tool{tool.New("pay", "付款。", func(ctx context.Context, in struct{}) (string, error) { return "ok", nil }, tool.Options{RequireApproval: true})}, nil, "pay", agentkit.PendingApproval},
		{"destructive by annotation", []*tool.Tool{plain("delete", tool.Annotations{})}, []tool.Middleware{middleware.RequireApproval(middleware.Destructive)}, "delete", agentkit.PendingApproval},
		{"read-only by annotation", []*tool.Tool{plain("read", tool.Annotations{ReadOnly: true})}, []tool.Middleware{middleware.RequireApproval(middleware.Destructive)}, "read", ""},
		{"by predicate", []*tool.Tool{plain("send", tool.Annotations{ReadOnly: true})},
			[]tool.Middleware{middleware.RequireApproval(func(c tool.Call) bool { return c.Name == "send" })}, "send", agentkit.PendingApproval},
		{"deferred", []*tool.Tool{browser}, nil, "open_page", agentkit.PendingDeferred},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := `{}`
			if tt.call == "open_page" {
				args = `{"url":"https://example.com"}`
			}
			replies := []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.CallID("c1", tt.call, args))}
			if tt.wantKind == "" {
				replies = append(replies, agentkittest.Text("好了"))
			}
			a := agentkit.New(agentkittest.New(t, replies...), &agentkit.Options{Tools: tt.tools, Middleware: tt.mw})
			res, err := a.Run(context.Background(), "做")
			if tt.wantKind == "" {
				if err != nil || res.Pause != nil {
					t.Fatalf("Run = %q, %v, pause %v; want an answer", res.Stop, err, res.Pause)
				}
				return
			}
			if res.Pause == nil || len(res.Pause.Pending) != 1 || res.Pause.Pending[0].Kind != tt.wantKind {
				t.Fatalf("Run = %q, %v, pause %+v; want one pending call of kind %q", res.Stop, err, res.Pause, tt.wantKind)
			}
		})
	}
}

// A turn that stops the run (a fatal sibling) does not pause: the pending call is answered
// not executed, and the transcript validates.
func TestNoPauseOnFatalSibling(t *testing.T) {
	var b bank
	fatal := tool.New("explode", "炸。", func(ctx context.Context, in struct{}) (string, error) { return "", tool.Fatalf("boom") })
	model := agentkittest.New(t, agentkittest.ToolCalls(
		agentkittest.CallID("c1", "transfer", `{"to":"alice","amount":1}`),
		agentkittest.CallID("c2", "explode", `{}`)))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{b.transfer(), fatal}})
	res, err := a.Run(context.Background(), "做")
	if res.Stop != agentkit.StopFatalTool || res.Pause != nil || !errors.Is(err, tool.ErrFatal) {
		t.Fatalf("Run = %q, %v, pause %v; want StopFatalTool and no pause", res.Stop, err, res.Pause)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[len(res.Messages)-2]; got.ToolCallID != "c1" || got.Content != "error: not executed: the run stopped before this call was decided." {
		t.Errorf("the pending call's message = %+v", got)
	}
}

// A Pause survives JSON: the signed state written by json.Marshal resumes after
// json.Unmarshal, indented or not.
func TestPauseJSON(t *testing.T) {
	var b bank
	model := agentkittest.New(t, pauseTurn(), agentkittest.Text("都转好了"))
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}, Ledger: &mapLedger{}, PauseKey: []byte("k")})
	p := paused(t, a)
	data, err := json.MarshalIndent(p, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	var back agentkit.Pause
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	res, err := a.Resume(context.Background(), &back, []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Approve: true}})
	if err != nil || res.Output != "都转好了" {
		t.Fatalf("Resume = %q, %v", res.Output, err)
	}
	if b.transfers.Load() != 2 {
		t.Errorf("transfer ran %d times, want 2", b.transfers.Load())
	}
}

// The assistant message of a Pause is what the model sent (normalized): a session or a
// client may show it.
func TestPauseKeepsAssistantMessage(t *testing.T) {
	var b bank
	a := agentkit.New(agentkittest.New(t, pauseTurn()), &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}})
	p := paused(t, a)
	last := p.Messages[len(p.Messages)-1]
	if last.Role != openai.ChatMessageRoleAssistant || len(last.ToolCalls) != 3 || last.ToolCalls[2].Function.Arguments != `{ "to" : "bob", "amount" : 20 }` {
		t.Errorf("the Pause's last message = %+v", last)
	}
}

// The signature survives JSON for everything a transcript may hold: parts, reasoning,
// provider extras, names, and text JSON escapes differently (<, &, U+2028).
func TestPauseSignatureSurvivesRichMessages(t *testing.T) {
	var b bank
	reply := pauseTurn()
	reply.Message.ReasoningContent = "先查余额 <再> 转账 & 记录\u2028"
	reply.Message = agentkit.SetExtras(reply.Message, agentkit.ProviderExtras{Message: map[string]json.RawMessage{"reasoning_details": json.RawMessage(`[{"type":"reasoning.encrypted","data":"abc=="}]`)}})
	model := agentkittest.New(t, reply, agentkittest.Text("好"))
	key := []byte("k")
	a := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{b.transfer(), b.lookup()}, Ledger: &mapLedger{}, PauseKey: key})
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "你是银行助手 <b>&</b>"},
		{Role: openai.ChatMessageRoleUser, Name: "alice", MultiContent: []openai.ChatMessagePart{
			{Type: openai.ChatMessagePartTypeText, Text: "看图转账"},
			{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: "https://example.com/a.png", Detail: openai.ImageURLDetailLow}},
		}},
	}
	res, _ := a.RunMessages(context.Background(), history)
	if res.Pause == nil {
		t.Fatal("no pause")
	}
	data, err := json.Marshal(res.Pause)
	if err != nil {
		t.Fatal(err)
	}
	var back agentkit.Pause
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := agentkit.Extras(back.Messages[len(back.Messages)-1]); !ok {
		t.Error("the provider extras of the paused message did not survive JSON")
	}
	res, err = a.Resume(context.Background(), &back, []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Approve: true}})
	if err != nil || res.Output != "好" {
		t.Fatalf("Resume = %q, %v", res.Output, err)
	}
}

// An empty PauseKey is a mistake (a key file or variable left empty), not a key: an HMAC
// under it is one anyone can compute, so New refuses it rather than sign states that any
// client could forge.
func TestPauseKeyEmpty(t *testing.T) {
	defer func() {
		p := recover()
		if got, want := p, "agentkit.New: Options.PauseKey is empty: anyone can sign with an empty key (nil turns signing off)"; got != want {
			t.Errorf("New panicked with %v, want %q", got, want)
		}
	}()
	agentkit.New(agentkittest.New(t), &agentkit.Options{PauseKey: []byte{}})
}

// A signed Pause resumes after JSON even when its transcript holds text that is not UTF-8 (a
// tool that returns a file's bytes): JSON replaces such bytes with U+FFFD, so the state is
// signed as JSON gives it back, and Result.Pause is that state.
func TestPauseSignatureSurvivesInvalidUTF8(t *testing.T) {
	var b bank
	lookup := tool.New("lookup", "查余额。", func(ctx context.Context, in struct{}) (string, error) { return "余额 \xff\xfe 1000", nil })
	a := agentkit.New(agentkittest.New(t, pauseTurn(), agentkittest.Text("好")), &agentkit.Options{Tools: []*tool.Tool{b.transfer(), lookup}, Ledger: &mapLedger{}, PauseKey: []byte("k")})
	p := paused(t, a)
	if got, want := p.Results[0].Content, "余额 \ufffd\ufffd 1000"; got != want {
		t.Errorf("the paused result = %q, want %q (as JSON gives it back)", got, want)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back agentkit.Pause
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	res, err := a.Resume(context.Background(), &back, []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Approve: true}})
	if err != nil || res.Output != "好" {
		t.Fatalf("Resume = %q, %v", res.Output, err)
	}
}
