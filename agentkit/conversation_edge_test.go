package agentkit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A refused turn (an empty input) returns a Result whose Messages end with the refused user
// message. That Result must not change when later turns run: Run returns it without
// clipping, so its last message lives in the conversation's spare capacity, where the next
// turn writes its own user message.
func TestConversationRefusedResultNotOverwritten(t *testing.T) {
	var replies []agentkittest.Reply
	for i := range 6 {
		replies = append(replies, agentkittest.Text(fmt.Sprint("answer ", i)))
	}
	a := agentkit.New(agentkittest.New(t, replies...), &agentkit.Options{Instructions: "system"})
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	type refused struct {
		msgs []openai.ChatCompletionMessage
		want []openai.ChatCompletionMessage
	}
	var kept []refused
	for i := range 6 {
		res, err := conv.Run(context.Background(), "")
		if !errors.Is(err, agentkit.ErrInvalidHistory) {
			t.Fatalf("an empty input: %v, want ErrInvalidHistory", err)
		}
		kept = append(kept, refused{res.Messages, append([]openai.ChatCompletionMessage(nil), res.Messages...)})
		if _, err := conv.Run(context.Background(), fmt.Sprint("question ", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range kept {
		for j := range r.want {
			if r.msgs[j].Content != r.want[j].Content || r.msgs[j].Role != r.want[j].Role {
				t.Errorf("refused turn %d: Result.Messages[%d] became %s %q after later turns, was %s %q",
					i, j, r.msgs[j].Role, r.msgs[j].Content, r.want[j].Role, r.want[j].Content)
			}
		}
	}
}

// A RunMiddleware that retries on error calls next twice. When both loops end at the
// iteration limit with FinalAnswerOnLimit, each appended a BudgetExhaustedPrompt, but
// Conversation.Run removes only the last one (r.budgetAt): the first stays in the
// conversation and is sent with every later turn.
func TestConversationRetryLeavesNoBudgetPrompt(t *testing.T) {
	retry := func(next agentkit.RunFunc) agentkit.RunFunc {
		return func(ctx context.Context) (*agentkit.Result, error) {
			res, err := next(ctx)
			if err != nil && ctx.Err() == nil {
				return next(ctx)
			}
			return res, err
		}
	}
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Error(errors.New("503 overloaded")), // the tool-free last request fails
		// The retry: the loop runs again on the transcript so far.
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"上海"}`)),
		agentkittest.Text("北京晴，上海多云。"),
		// The next turn.
		agentkittest.Text("不客气。"),
	)
	a := agentkit.New(m, &agentkit.Options{
		Tools: []*tool.Tool{weatherTool()}, MaxIterations: 1, FinalAnswerOnLimit: true,
		RunMiddleware: []agentkit.RunMiddleware{retry},
	})
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	res, err := conv.Run(context.Background(), "北京和上海？")
	if err != nil || res.Output != "北京晴，上海多云。" {
		t.Fatalf("turn 1: %q, %v", res.Output, err)
	}
	if containsContent(conv.Messages(), agentkit.BudgetExhaustedPrompt) {
		t.Errorf("the conversation keeps a budget prompt:\n%s", agentkit.FormatTranscript(conv.Messages()))
	}
	if _, err := conv.Run(context.Background(), "谢谢"); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if last := reqs[len(reqs)-1]; containsContent(last.Messages, agentkit.BudgetExhaustedPrompt) {
		t.Error("the next turn's request still carries a budget prompt")
	}
}

// The tool-free last request of FinalAnswerOnLimit appends the model's answer without
// checking it, where the loop's ordinary answer is checked (run.go, "the model's answer (a
// bug: please report it)"). An answer whose only content part is empty is normalized into an
// assistant message with no content at all, which the conversation keeps: its transcript no
// longer passes ValidateHistory, and every later turn sends it (only what follows the
// trusted transcript is checked).
func TestConversationFinalAnswerIsChecked(t *testing.T) {
	emptyParts := agentkittest.Reply{Message: openai.ChatCompletionMessage{
		Role:         openai.ChatMessageRoleAssistant,
		MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: ""}},
	}}
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		emptyParts, // the tool-free last request
	)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}, MaxIterations: 1, FinalAnswerOnLimit: true})
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	conv.Run(context.Background(), "北京？") // an error is fine; an invalid transcript is not
	if err := agentkit.ValidateHistory(conv.Messages()); err != nil {
		t.Errorf("after a turn whose last answer was empty, the conversation is invalid: %v\n%s", err, agentkit.FormatTranscript(conv.Messages()))
	}
}

// The same empty answer on the loop's ordinary path: the run ends with StopInvalidHistory
// ("the model's answer (a bug: please report it)"), but finish persists the answer first, so
// the Memory now holds a history that fails ValidateHistory and every later RunSession of
// the session is refused.
func TestRunSessionEmptyAnswerNotStored(t *testing.T) {
	emptyParts := agentkittest.Reply{Message: openai.ChatCompletionMessage{
		Role:         openai.ChatMessageRoleAssistant,
		MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: ""}},
	}}
	mem := &reviewMemory{}
	a := agentkit.New(agentkittest.New(t, emptyParts, agentkittest.Text("你好！")), &agentkit.Options{Memory: mem})
	a.RunSession(context.Background(), "s", "你好") // an error is fine
	if err := agentkit.ValidateHistory(mem.msgs); err != nil {
		t.Errorf("the stored session is invalid: %v\n%s", err, agentkit.FormatTranscript(mem.msgs))
	}
	if res, err := a.RunSession(context.Background(), "s", "在吗？"); err != nil {
		t.Errorf("the next run of the session: %v (%s)", err, res.Stop)
	}
}

// reviewMemory is a one-session Memory.
type reviewMemory struct {
	msgs []openai.ChatCompletionMessage
}

func (m *reviewMemory) Load(ctx context.Context, session string, _ agentkit.LoadOptions) (agentkit.History, error) {
	return agentkit.History{Messages: append([]openai.ChatCompletionMessage(nil), m.msgs...)}, nil
}

func (m *reviewMemory) Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error {
	m.msgs = append(m.msgs, msgs...)
	return nil
}

// A context strategy whose view is refused before the second model call ends the run with
// StopInvalidHistory, after the first step's tool call ran. Run documents that what a run
// adds is kept also when it ends early (RunSession has stored the step by then), but the
// Conversation drops the whole run: the next turn is sent without the call that ran.
func TestConversationKeepsStepsBeforeARefusedView(t *testing.T) {
	ran := 0
	send := tool.New("send_email", "sends an email", func(ctx context.Context, in struct{}) (string, error) {
		ran++
		return "sent", nil
	})
	views := 0
	strategy := agentkit.ContextStrategyFunc(func(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		views++
		if views == 2 { // a broken view: the tool block without its assistant message
			return msgs[len(msgs)-1:], nil
		}
		return msgs, nil
	})
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("send_email", `{}`)),
		// the second request is refused before it is sent
	)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{send}, Context: strategy})
	conv, err := a.NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	res, err := conv.Run(context.Background(), "发邮件")
	if !errors.Is(err, agentkit.ErrInvalidHistory) || ran != 1 {
		t.Fatalf("turn 1: %v (%s), the tool ran %d times; want ErrInvalidHistory after one call", err, res.Stop, ran)
	}
	msgs := conv.Messages()
	calls := 0
	for _, msg := range msgs {
		calls += len(msg.ToolCalls)
	}
	if calls != 1 {
		t.Errorf("the conversation holds %d tool calls, want the one that ran:\n%s", calls, agentkit.FormatTranscript(msgs))
	}
	if err := agentkit.ValidateHistory(msgs); err != nil {
		t.Errorf("the conversation is invalid: %v", err)
	}
}
