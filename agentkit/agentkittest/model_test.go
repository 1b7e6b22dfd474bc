package agentkittest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// recorder is a testing.TB that records Errorf calls instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestReportsExhaustedScript(t *testing.T) {
	rec := &recorder{TB: t}
	m := agentkittest.New(rec)
	_, err := m.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if !errors.Is(err, agentkittest.ErrScriptExhausted) || len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "no reply left") {
		t.Errorf("err = %v, reports = %q", err, rec.errs)
	}
}

func TestReportsInvalidRequest(t *testing.T) {
	rec := &recorder{TB: t}
	m := agentkittest.New(rec, agentkittest.Text("x"))
	_, err := m.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{
		{Role: "user", Content: "hi"}, {Role: "tool", ToolCallID: "orphan", Content: "r"},
	}})
	if err == nil || len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "breaks the wire rules") {
		t.Errorf("err = %v, reports = %q", err, rec.errs)
	}
}

func TestAssignsIDsAndRecords(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("a", `{}`), agentkittest.CallID("mine", "b", `{}`)),
		agentkittest.ToolCalls(agentkittest.Call("a", `{}`)),
	)
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}
	r1, _ := m.CreateChatCompletion(context.Background(), req)
	r2, _ := m.CreateChatCompletion(context.Background(), req)
	var ids []string
	for _, r := range []openai.ChatCompletionResponse{r1, r2} {
		for _, c := range r.Choices[0].Message.ToolCalls {
			ids = append(ids, c.ID)
		}
	}
	if got, want := strings.Join(ids, " "), "call_1 mine call_2"; got != want {
		t.Errorf("ids = %q, want %q", got, want)
	}
	if r1.Choices[0].FinishReason != openai.FinishReasonToolCalls || len(m.Requests()) != 2 || m.Remaining() != 0 {
		t.Errorf("finish %q, %d requests, %d remaining", r1.Choices[0].FinishReason, len(m.Requests()), m.Remaining())
	}
}

// The streamed replay reassembles to the scripted reply.
func TestStreamReassembles(t *testing.T) {
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京市朝阳区"}`), agentkittest.Call("x", `{}`)))
	s, err := m.CreateChatCompletionStream(context.Background(), openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	var asm agentkit.Assembler
	var n int
	for {
		c, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		asm.Add(nil, c)
	}
	_, msg, fr, _ := asm.Finish(nil)
	if len(msg.ToolCalls) != 2 || msg.ToolCalls[0].Function.Arguments != `{"city":"北京市朝阳区"}` || msg.ToolCalls[1].ID != "call_2" || fr != openai.FinishReasonToolCalls {
		t.Errorf("reassembled %+v finish %q", msg.ToolCalls, fr)
	}
	if n < 6 {
		t.Errorf("only %d chunks: the reply was not fragmented", n)
	}
}

// The kit in use: an agent tested offline.
func TestAgentWithScriptedModel(t *testing.T) {
	echo := tool.New("echo", "echoes", func(ctx context.Context, in struct {
		S string `json:"s"`
	}) (string, error) {
		return in.S, nil
	})
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"s":"hi"}`)),
		agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			tm := agentkittest.ToolMessages(req)
			return agentkittest.Text("tool said " + tm[len(tm)-1].Content)
		}),
	)
	res, err := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{echo}}).Run(context.Background(), "go")
	if err != nil || res.Output != "tool said hi" {
		t.Errorf("output %q err %v", res.Output, err)
	}
}
