package agentkit_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// conversationTurns is a chat whose model reuses the id "call_0" every turn, as some local
// servers do: the ids must still be unique across the whole conversation.
var conversationTurns = []struct {
	input   string
	replies []agentkittest.Reply
}{
	{"北京天气？", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.CallID("call_0", "get_weather", `{"city":"北京"}`)), agentkittest.Text("北京晴。")}},
	{"上海和广州？", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.CallID("call_0", "get_weather", `{"city":"上海"}`), agentkittest.CallID("call_1", "get_weather", `{"city":"广州"}`)), agentkittest.Text("上海多云，广州阵雨。")}},
	{"谢谢", []agentkittest.Reply{agentkittest.Text("不客气。")}},
	{"再查北京", []agentkittest.Reply{agentkittest.ToolCalls(agentkittest.CallID("call_0", "get_weather", `{"city":"北京"}`)), agentkittest.Text("还是晴。")}},
}

// A Conversation sends the model what RunMessages on the previous transcript sends, and
// keeps the same transcript, turn after turn.
func TestConversationMatchesRunMessages(t *testing.T) {
	opts := func(m agentkit.Model) *agentkit.Options {
		return &agentkit.Options{Model: "gpt-4o-mini", Instructions: "你是天气助手。", Tools: []*tool.Tool{weatherTool()}}
	}
	var viaMessages, viaConversation [][]openai.ChatCompletionMessage
	var reqMessages, reqConversation []openai.ChatCompletionRequest

	var hist []openai.ChatCompletionMessage
	for _, turn := range conversationTurns {
		m := agentkittest.New(t, turn.replies...)
		res, err := agentkit.New(m, opts(m)).RunMessages(context.Background(), append(slices.Clip(hist), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: turn.input}))
		if err != nil {
			t.Fatal(err)
		}
		hist = res.Messages
		viaMessages = append(viaMessages, res.Messages)
		reqMessages = append(reqMessages, m.Requests()...)
	}

	m := agentkittest.New(t)
	a := agentkit.New(agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return m.CreateChatCompletion(ctx, req)
	}), opts(nil))
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range conversationTurns {
		m = agentkittest.New(t, turn.replies...)
		res, err := conv.Run(context.Background(), turn.input)
		if err != nil {
			t.Fatal(err)
		}
		viaConversation = append(viaConversation, res.Messages)
		reqConversation = append(reqConversation, m.Requests()...)
	}
	if diff := cmp.Diff(viaMessages, viaConversation); diff != "" {
		t.Errorf("transcripts differ (-RunMessages +Conversation):\n%s", diff)
	}
	if diff := cmp.Diff(reqMessages, reqConversation); diff != "" {
		t.Errorf("requests differ (-RunMessages +Conversation):\n%s", diff)
	}
	// Every earlier Result still holds what its run returned: later turns appended after it.
	for i, msgs := range viaConversation {
		if diff := cmp.Diff(viaMessages[i], msgs); diff != "" {
			t.Errorf("turn %d's Result.Messages changed after later turns:\n%s", i+1, diff)
		}
	}
	all := conv.Messages()
	if err := agentkit.ValidateHistory(all); err != nil {
		t.Errorf("the conversation's transcript is not valid: %v", err)
	}
	ids := map[string]bool{}
	for _, msg := range all {
		for _, c := range msg.ToolCalls {
			if ids[c.ID] {
				t.Errorf("id %q used twice in the conversation", c.ID)
			}
			ids[c.ID] = true
		}
	}
	if len(ids) != 4 {
		t.Errorf("%d distinct call ids, want 4", len(ids))
	}
}

func TestConversationHistory(t *testing.T) {
	a := agentkit.New(agentkittest.New(t, agentkittest.Text("好的。")), &agentkit.Options{Instructions: "agent prompt"})
	history := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "own prompt"},
		{Role: openai.ChatMessageRoleUser, Content: "你好"},
		{Role: openai.ChatMessageRoleAssistant, Content: "你好！"},
	}
	conv, err := a.NewConversation(history...)
	if err != nil {
		t.Fatal(err)
	}
	history[1].Content = "changed by the caller" // NewConversation copied it
	res, err := conv.Run(context.Background(), "继续")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, m := range res.Messages {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"system: own prompt", "user: 你好", "assistant: 你好！", "user: 继续", "assistant: 好的。"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	if res.New != 4 {
		t.Errorf("Result.New = %d, want 4 (the first message the run produced)", res.New)
	}
	// Modifying the copy does not change the conversation.
	c := conv.Messages()
	c[1].Content = "changed"
	if conv.Messages()[1].Content != "你好" {
		t.Error("Messages returned the conversation's own array")
	}
}

func TestNewConversationInvalidHistory(t *testing.T) {
	a := agentkit.New(agentkittest.New(t), nil)
	_, err := a.NewConversation(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: "x", Content: "orphan"})
	if !errors.Is(err, agentkit.ErrInvalidHistory) {
		t.Errorf("got %v, want ErrInvalidHistory", err)
	}
}

// The budget prompt of a run that ran out of iterations is in that run's Result, not in the
// conversation: the next turn does not tell the model it may not call tools.
func TestConversationBudgetPrompt(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京晴。"), // the tool-free last request
		agentkittest.Text("不客气。"),
	)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}, MaxIterations: 1, FinalAnswerOnLimit: true})
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	res, err := conv.Run(context.Background(), "北京？")
	if err != nil || res.Output != "北京晴。" {
		t.Fatalf("turn 1: %q, %v", res.Output, err)
	}
	if !containsContent(res.Messages, agentkit.BudgetExhaustedPrompt) {
		t.Error("turn 1's Result.Messages lacks the budget prompt its last request carried")
	}
	if _, err := conv.Run(context.Background(), "谢谢"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if last := reqs[len(reqs)-1]; containsContent(last.Messages, agentkit.BudgetExhaustedPrompt) {
		t.Error("the next turn's request still carries the budget prompt")
	}
	if containsContent(conv.Messages(), agentkit.BudgetExhaustedPrompt) {
		t.Error("the conversation keeps the budget prompt")
	}
	if !containsContent(res.Messages, agentkit.BudgetExhaustedPrompt) {
		t.Error("turn 1's Result.Messages changed after turn 2")
	}
}

func containsContent(msgs []openai.ChatCompletionMessage, content string) bool {
	for _, m := range msgs {
		if m.Content == content {
			return true
		}
	}
	return false
}

// Turns run one at a time; a turn waiting for another gives up when its context ends.
func TestConversationOneTurnAtATime(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	slow := tool.New("slow", "waits", func(ctx context.Context, in struct{}) (string, error) {
		started <- struct{}{}
		<-release
		return "done", nil
	})
	replies := []agentkittest.Reply{}
	for range 3 {
		replies = append(replies, agentkittest.ToolCalls(agentkittest.Call("slow", `{}`)), agentkittest.Text("ok"))
	}
	a := agentkit.New(agentkittest.New(t, replies...), &agentkit.Options{Tools: []*tool.Tool{slow}})
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := range 2 {
		wg.Go(func() {
			_, err := conv.Run(context.Background(), fmt.Sprint("turn ", i))
			errs <- err
		})
	}
	<-started
	select {
	case <-started:
		t.Fatal("a second turn started while the first was running")
	case <-time.After(50 * time.Millisecond):
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := conv.Run(ctx, "impatient"); !errors.Is(err, agentkit.ErrSessionBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a turn waiting past its deadline: %v, want ErrSessionBusy and DeadlineExceeded", err)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	msgs := conv.Messages()
	if err := agentkit.ValidateHistory(msgs); err != nil {
		t.Fatal(err)
	}
	users := 0
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleUser {
			users++
		}
	}
	if len(msgs) != 8 || users != 2 {
		t.Errorf("%d messages with %d user messages, want 8 with 2: %s", len(msgs), users, agentkit.FormatTranscript(msgs))
	}
}

// A run the loop never ran (a run middleware answered instead) or refused (an empty user
// message) leaves the conversation as it was.
func TestConversationKeepsOnlyCheckedRuns(t *testing.T) {
	refuse := func(next agentkit.RunFunc) agentkit.RunFunc {
		return func(ctx context.Context) (*agentkit.Result, error) {
			return &agentkit.Result{Stop: agentkit.StopCanceled}, errors.New("refused by policy")
		}
	}
	a := agentkit.New(agentkittest.New(t, agentkittest.Text("hi")), &agentkit.Options{RunMiddleware: []agentkit.RunMiddleware{refuse}})
	conv, _ := a.NewConversation()
	if _, err := conv.Run(context.Background(), "hello"); err == nil {
		t.Fatal("the middleware's refusal was lost")
	}
	if n := len(conv.Messages()); n != 0 {
		t.Errorf("a run that never ran left %d messages in the conversation", n)
	}

	a = agentkit.New(agentkittest.New(t, agentkittest.Text("hi")), nil)
	conv, _ = a.NewConversation()
	if res, err := conv.Run(context.Background(), ""); !errors.Is(err, agentkit.ErrInvalidHistory) || res.Stop != agentkit.StopInvalidHistory {
		t.Fatalf("an empty message: %v, %v; want ErrInvalidHistory", res.Stop, err)
	}
	if res, err := conv.Run(context.Background(), "hello"); err != nil || res.Output != "hi" {
		t.Fatalf("the next turn: %q, %v", res.Output, err)
	}
	if n := len(conv.Messages()); n != 2 {
		t.Errorf("%d messages, want 2: the refused empty message is not kept", n)
	}
}
