package wiretest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// streamed is what one streamed model turn delivered.
type streamed struct {
	// openErr is CreateChatCompletionStream's error: the request was refused, nothing was
	// received.
	openErr error
	deltas  []agentkit.Delta
	chunks  int
	// err is the error that ended the stream early; nil after a normal end (io.EOF), when
	// msg, finish and usage are the assembled reply.
	err    error
	msg    openai.ChatCompletionMessage
	finish openai.FinishReason
	usage  *openai.Usage
	asm    *agentkit.Assembler
}

// stream sends req as a streaming request and assembles the reply, as a streaming loop does.
func stream(ctx context.Context, m agentkit.StreamingModel, req openai.ChatCompletionRequest) streamed {
	s, err := m.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return streamed{openErr: err}
	}
	defer s.Close()
	out := streamed{asm: &agentkit.Assembler{}}
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.err = err
			return out
		}
		out.chunks++
		out.deltas = out.asm.Add(out.deltas, chunk)
	}
	out.deltas, out.msg, out.finish, out.usage = out.asm.Finish(out.deltas)
	return out
}

func streamRequest(w *tool.Tool, msgs ...openai.ChatCompletionMessage) openai.ChatCompletionRequest {
	return openai.ChatCompletionRequest{
		Model:         "gpt-4o-mini",
		Messages:      msgs,
		Tools:         []openai.Tool{agentkit.Definition(w)},
		Temperature:   agentkit.WireZeroTemperature,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
}

func toolCall(id, name, args string) openai.ToolCall {
	return openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: name, Arguments: args}}
}

// Tool-call deltas as a real server streams them (arguments cut every few characters, a
// usage chunk after the finish chunk) are assembled into the calls the fixture scripted; the
// first call is announced done as soon as the second begins. The results go back in a second
// streamed request, whose answer, cut every 3 characters, is reassembled intact.
func TestStreamingToolCallDeltas(t *testing.T) {
	t.Parallel()
	eachClient(t, "stream.json", clientOptions{}, testStreamingToolCallDeltas)
}

func testStreamingToolCallDeltas(t *testing.T, e *env) {
	ctx := testContext(t)
	w := &weather{}
	weatherTool := w.tool()
	m := e.streaming

	history := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "用流式查询北京和广州的天气"}}
	first := stream(ctx, m, streamRequest(weatherTool, history...))
	if first.openErr != nil || first.err != nil {
		t.Fatalf("first stream: %v", errors.Join(first.openErr, first.err))
	}
	wantDeltas := []agentkit.Delta{
		{Kind: agentkit.DeltaToolCallStart, Call: 0},
		{Kind: agentkit.DeltaToolCallDone, Call: 0}, // when call 1 begins: its arguments are complete
		{Kind: agentkit.DeltaToolCallStart, Call: 1},
		{Kind: agentkit.DeltaToolCallDone, Call: 1}, // at Finish
	}
	if diff := cmp.Diff(wantDeltas, first.deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	wantCalls := []openai.ToolCall{
		toolCall("call_bj", "get_weather", `{"city":"北京"}`),
		toolCall("call_gz", "get_weather", `{"city":"广州"}`),
	}
	if diff := cmp.Diff(wantCalls, first.msg.ToolCalls); diff != "" {
		t.Errorf("assembled tool calls (-want +got):\n%s", diff)
	}
	if first.msg.Role != openai.ChatMessageRoleAssistant || first.finish != openai.FinishReasonToolCalls || first.usage == nil {
		t.Errorf("role %q, finish %q, usage %v", first.msg.Role, first.finish, first.usage)
	}
	// 1 role chunk, 2 call headers, 4+4 argument fragments (chunkSize 4 of 13 characters), 1
	// finish chunk, 1 usage chunk.
	if first.chunks < 10 {
		t.Errorf("%d chunks: the fixture's arguments were not split", first.chunks)
	}

	history = append(history, first.msg)
	for _, c := range first.msg.ToolCalls {
		res := weatherTool.Handle(ctx, tool.Call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments, Tool: weatherTool})
		if res.Failed() {
			t.Fatalf("call %s: %v", c.ID, res.Err)
		}
		history = append(history, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID, Content: res.Content})
	}
	if err := agentkit.ValidateHistory(history); err != nil {
		t.Fatalf("history: %v", err)
	}
	second := stream(ctx, m, streamRequest(weatherTool, history...))
	if second.openErr != nil || second.err != nil {
		t.Fatalf("second stream: %v", errors.Join(second.openErr, second.err))
	}
	const answer = "北京晴，气温26℃；广州阵雨，气温30℃。"
	var text strings.Builder
	for _, d := range second.deltas {
		if d.Kind != agentkit.DeltaText {
			t.Errorf("unexpected delta %+v in a text reply", d)
		}
		text.WriteString(d.Text)
	}
	if text.String() != answer || second.msg.Content != answer || len(second.msg.ToolCalls) != 0 || second.finish != openai.FinishReasonStop {
		t.Errorf("text deltas %q, message %+v, finish %q; want %q", text.String(), second.msg, second.finish, answer)
	}
	if n := len(second.deltas); n < 2 {
		t.Errorf("%d text deltas: the answer was not streamed in fragments", n)
	}

	reqs := requests(t, e.capture.Exchanges())
	if len(reqs) != 2 || !reqs[0].Stream || !reqs[1].Stream {
		t.Fatalf("requests = %+v", reqs)
	}
	want := []wireMessage{
		{Role: "user", Content: "用流式查询北京和广州的天气"},
		{Role: "assistant", ToolCalls: []wireToolCall{
			call("call_bj", "get_weather", `{"city":"北京"}`),
			call("call_gz", "get_weather", `{"city":"广州"}`),
		}},
		{Role: "tool", ToolCallID: "call_bj", Content: forecasts["北京"]},
		{Role: "tool", ToolCallID: "call_gz", Content: forecasts["广州"]},
	}
	if diff := cmp.Diff(want, reqs[1].Messages); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
}

// The server cuts the connection in the middle of the second tool call's arguments (after
// 10 SSE chunks). Recv reports an error, not io.EOF, so the stream is not mistaken for a
// finished message: one matching io.ErrUnexpectedEOF (both clients return the body's own
// today; agentkit.ErrStreamTruncated, which their docs promise, matches it too: see
// TestStreamCutIsTruncated). The Assembler's partial message holds no tool call, not even the first
// one whose arguments were complete and announced done: nothing of an unconfirmed message
// may run.
func TestStreamDisconnectMidToolCall(t *testing.T) {
	t.Parallel()
	eachClient(t, "disconnect.json", clientOptions{}, testStreamDisconnectMidToolCall)
}

func testStreamDisconnectMidToolCall(t *testing.T, e *env) {
	w := &weather{}
	weatherTool := w.tool()
	got := stream(testContext(t), e.streaming,
		streamRequest(weatherTool, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "流中断开：北京和上海的天气"}))
	if got.openErr != nil {
		t.Fatalf("CreateChatCompletionStream: %v", got.openErr)
	}
	if got.err == nil {
		t.Fatalf("the stream ended normally after %d chunks; want an error", got.chunks)
	}
	t.Logf("Recv after %d chunks: %v", got.chunks, got.err)
	if errors.Is(got.err, io.EOF) || !errors.Is(got.err, io.ErrUnexpectedEOF) {
		t.Errorf("Recv error = %v; want io.ErrUnexpectedEOF (or agentkit.ErrStreamTruncated), never io.EOF", got.err)
	}
	// The fixture's 12 chunks: the role, call 0's header and 4 argument fragments, call 1's
	// header and 4 fragments, the finish. aimock destroys the socket right after writing the
	// 10th, which may be lost with it.
	if got.chunks < 9 || got.chunks > 10 {
		t.Errorf("received %d chunks; the fixture cuts after the 10th", got.chunks)
	}
	wantDeltas := []agentkit.Delta{
		{Kind: agentkit.DeltaToolCallStart, Call: 0},
		{Kind: agentkit.DeltaToolCallDone, Call: 0},
		{Kind: agentkit.DeltaToolCallStart, Call: 1},
	}
	if diff := cmp.Diff(wantDeltas, got.deltas); diff != "" {
		t.Errorf("deltas before the cut (-want +got):\n%s", diff)
	}
	partial, lost := got.asm.Partial()
	if len(partial.ToolCalls) != 0 || lost != 2 {
		t.Errorf("Partial: %d tool calls, %d lost; want 0 and 2", len(partial.ToolCalls), lost)
	}
	if c := w.calls(); len(c) != 0 {
		t.Errorf("tool executed for %v", c)
	}
}

// A connection cut before the model finished its message is agentkit.ErrStreamTruncated
// through both clients. Over HTTP, a cut is what aimock does here: the chunked body ends
// without its last chunk, and reading it returns io.ErrUnexpectedEOF, not io.EOF.
func TestStreamCutIsTruncated(t *testing.T) {
	t.Parallel()
	s := newServer(t, "disconnect.json")
	for _, c := range clients {
		t.Run(string(c), func(t *testing.T) {
			t.Parallel()
			e := s.newEnv(t, c, clientOptions{})
			got := stream(testContext(t), e.streaming,
				streamRequest((&weather{}).tool(), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "流中断开：北京和上海的天气"}))
			if got.openErr != nil || !errors.Is(got.err, agentkit.ErrStreamTruncated) {
				t.Errorf("CreateChatCompletionStream: %v; Recv error after %d chunks = %v; want agentkit.ErrStreamTruncated", got.openErr, got.chunks, got.err)
			}
		})
	}
}
