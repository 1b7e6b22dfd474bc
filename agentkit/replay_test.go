package agentkit_test

// Replays every recording of real provider traffic in ../shared/recordings (see its
// SOURCES.md) through an httptest server to the real go-openai client:
//
//   - a streamed response is consumed with OpenAIStreaming and an Assembler, and must yield
//     exactly the content, reasoning and tool calls of the recording, derived here
//     independently by a naive reading of its SSE lines; the same body with SSE comment
//     lines and CRLF line ends must give the same message, and the body cut before its
//     finish chunk must end with ErrStreamTruncated and a Partial without calls;
//   - a tool-call exchange is replayed through the agent loop (Agent.RunMessages, from the
//     recorded first request's messages, with permissive tools returning the recorded
//     results; streamed exchanges through a test model that assembles streams, and again
//     through Agent.RunMessagesStream); every request after the first must carry the same
//     assistant tool calls (ids, names, arguments as JSON) and tool messages (tool_call_id,
//     content) as the recorded one;
//   - an error response must come back from Run as an *openai.APIError with the recorded
//     status and message, Stop == StopModelError and a valid transcript.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/internal/recording"
	"github.com/toolcall/toolcall/internal/shared"
	"github.com/toolcall/toolcall/internal/wiretest"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

// replaySchema returns the schema of a chat-completions request body in OpenAI's OpenAPI
// document (shared/openai-openapi), compiled once.
func replaySchema(t testing.TB) *wiretest.Schema {
	t.Helper()
	path := filepath.Join(shared.Dir(t, "openai-openapi"), "openapi.json")
	requestSchema.once.Do(func() {
		requestSchema.s, requestSchema.err = wiretest.LoadSchema(path, wiretest.ChatCompletionRequest)
	})
	if requestSchema.err != nil {
		t.Fatal(requestSchema.err)
	}
	return requestSchema.s
}

var requestSchema struct {
	once sync.Once
	s    *wiretest.Schema
	err  error
}

// replayDir is the recordings folder, in shared/ beside the repository.
func replayDir(t testing.TB) string {
	t.Helper()
	return shared.Dir(t, "recordings")
}

// replayQuirks are the recordings whose recorded follow-up request is not what a correct
// client sends, and what is compared instead.
var replayQuirks = map[string]struct {
	// argsFromResponse: the recorded request replays arguments that are not the model's
	// JSON, so the arguments expected are those of the recorded response.
	argsFromResponse bool
	// ownIDs: the provider sent empty tool call ids; the recording's client and our loop
	// each assign their own, so ids are compared by pairing (placeholders), not by value.
	ownIDs bool
	// emptyResults: the recording's client sent empty tool results; the loop sends
	// tool.EmptyContent (providers reject an empty tool message).
	emptyResults bool
	// clientInserted: the recording's client added messages of its own after the tool
	// results; the messages the loop sent are compared with the recorded ones before them.
	clientInserted bool
	// callsSplit: the recording's client sent each call of a parallel turn in an assistant
	// message of its own, followed by its result; the loop sends one message with all the
	// calls, then the results.
	callsSplit bool
}{
	// langchaingo replays the extracted "__arg1" string as the call's arguments.
	"langchaingo-httprr/TestExecutorWithOpenAIFunctionAgent.httprr": {argsFromResponse: true},
	// Gemini's OpenAI-compatible endpoint sends "id": "".
	"pydantic-ai-vcrpy/gemini_openai_compat_tool_call.yaml": {ownIDs: true},
	// Field recordings (../shared/recordings/field/SOURCES.md).
	"field/tmc-lcg__TestOpenAIFunctionsAgentWithHTTPRR":                  {argsFromResponse: true},
	"field/vx-lcg__TestExecutorWithOpenAIFunctionAgent":                  {argsFromResponse: true},
	"field/vx-lcg__TestOpenAIFunctionsAgentComplexCalculation":           {argsFromResponse: true, callsSplit: true},
	"field/vx-lcg__TestOpenAIFunctionsAgentWithHTTPRR":                   {argsFromResponse: true},
	"field/pydantic__cache__test_openrouter_cache_all_settings_real_api": {emptyResults: true},
	// pydantic-ai's tool search adds a call and its result of its own.
	"field/pydantic__deepseek__test_deepseek_deferred_capability_with_thinking": {clientInserted: true},
	// The cassette's request is not the one that produced this response (SOURCES.md): its
	// ids are not the response's.
	"field/simonw-llm__test_tools_streaming_variant_c": {ownIDs: true},
}

func TestReplayRecordings(t *testing.T) {
	dir := replayDir(t)
	files, err := recording.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatalf("no recordings in %s", dir)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			xs, err := recording.Load(f)
			if err != nil {
				t.Fatal(err)
			}
			var chat []recording.Exchange
			for _, x := range xs {
				if x.ChatCompletion() {
					chat = append(chat, x)
				}
			}
			if len(chat) == 0 {
				t.Fatal("no chat-completions exchange to replay")
			}
			for _, via := range replayClients {
				t.Run(string(via), func(t *testing.T) { replayExchanges(t, rel, chat, via) })
			}
		})
	}
}

// replayExchanges replays the chat-completions exchanges of one recording through client via.
func replayExchanges(t *testing.T, rel string, chat []recording.Exchange, via replayClient) {
	for i, x := range chat {
		if x.Stream() && x.Status == http.StatusOK {
			t.Run(fmt.Sprintf("assemble-%d", i), func(t *testing.T) { replayAssemble(t, x.Response, via) })
		}
	}
	// Split at error responses: each error is checked alone, and the exchanges after it (a
	// client's retry) are replayed as a run of their own.
	start := 0
	for i, x := range chat {
		if x.Status >= 400 {
			if i > start {
				replayRuns(t, rel, chat[start:i], start, via)
			}
			t.Run(fmt.Sprintf("error-%d", i), func(t *testing.T) { replayError(t, x, via) })
			start = i + 1
		}
	}
	if start < len(chat) {
		replayRuns(t, rel, chat[start:], start, via)
	}
}

// replayServer serves recorded chat-completions responses in order and records the
// requests. Past the recording it answers with a synthetic final answer (JSON or SSE, as
// asked), so that a one-turn recording still shows the second request the loop sends.
type replayServer struct {
	t   *testing.T
	url string

	mu       sync.Mutex
	queue    []recording.Exchange
	requests [][]byte
}

const syntheticAnswer = "(synthetic) done"

func newReplayServer(t *testing.T, queue ...recording.Exchange) *replayServer {
	s := &replayServer{t: t, queue: queue}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

func (s *replayServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.t.Errorf("reading the request: %v", err)
	}
	s.mu.Lock()
	s.requests = append(s.requests, body)
	var x recording.Exchange
	recorded := len(s.queue) > 0
	if recorded {
		x, s.queue = s.queue[0], s.queue[1:]
	}
	s.mu.Unlock()
	if !recorded {
		var req struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(body, &req)
		x = recording.Exchange{Status: http.StatusOK, ContentType: "application/json",
			Response: []byte(`{"id":"synthetic","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"` + syntheticAnswer + `"},"finish_reason":"stop"}]}`)}
		if req.Stream {
			x.ContentType = "text/event-stream"
			x.Response = []byte("data: {\"id\":\"synthetic\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"" + syntheticAnswer + "\"},\"finish_reason\":null}]}\n\n" +
				"data: {\"id\":\"synthetic\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		}
	}
	if x.ContentType != "" {
		w.Header().Set("Content-Type", x.ContentType)
	}
	w.WriteHeader(x.Status)
	_, _ = w.Write(x.Response)
}

func (s *replayServer) client() *openai.Client {
	cfg := openai.DefaultConfig("test")
	cfg.BaseURL = s.url + "/v1"
	return openai.NewClientWithConfig(cfg)
}

// replayClient names the HTTP client a replay drives: go-openai's (through OpenAIStreaming)
// or openaichat's.
type replayClient string

const (
	viaGoOpenAI   replayClient = "go-openai"
	viaOpenAIChat replayClient = "openaichat"
)

var replayClients = []replayClient{viaGoOpenAI, viaOpenAIChat}

// model returns the server's model through client c.
func (s *replayServer) model(c replayClient) agentkit.StreamingModel {
	if c == viaOpenAIChat {
		return openaichat.New(s.url+"/v1", &openaichat.Options{APIKey: "test"})
	}
	return agentkit.OpenAIStreaming(s.client())
}

func (s *replayServer) bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.requests...)
}

// sseExpect is what a stream holds, read naively from its SSE lines with encoding/json:
// fragments concatenated per tool call index. This is not the Assembler's logic (it would
// be wrong for providers that omit or reuse indexes, and the recordings have none).
type sseExpect struct {
	content, reasoning string
	calls              []openai.ToolCall // in order of first appearance of their index
	finish             openai.FinishReason
	usage              int // total_tokens of the last chunk with a usage; -1 when none
	finishEvent        int // position among the data events of the first finish_reason; -1 when none
}

func readSSE(t *testing.T, body []byte) sseExpect {
	t.Helper()
	e := sseExpect{usage: -1, finishEvent: -1}
	pos := map[int]int{}
	event := 0
	for _, line := range strings.Split(string(body), "\n") {
		payload, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		if !ok {
			continue
		}
		payload = strings.TrimSpace(payload)
		if payload == "[DONE]" {
			break
		}
		var c struct {
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Content   *string `json:"content"`
					Reasoning *string `json:"reasoning_content"`
					ToolCalls []struct {
						Index    *int   `json:"index"`
						ID       string `json:"id"`
						Function struct {
							Name      string `json:"name"`
							Arguments string `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			t.Fatalf("SSE event %d: %v: %.100s", event, err, payload)
		}
		if c.Usage != nil {
			e.usage = c.Usage.TotalTokens
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.Delta.Content != nil {
				e.content += *ch.Delta.Content
			}
			if ch.Delta.Reasoning != nil {
				e.reasoning += *ch.Delta.Reasoning
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Index == nil {
					t.Fatalf("SSE event %d: a tool call without index; the naive reader groups by index", event)
				}
				p, ok := pos[*tc.Index]
				if !ok {
					p = len(e.calls)
					pos[*tc.Index] = p
					e.calls = append(e.calls, openai.ToolCall{Type: openai.ToolTypeFunction})
				}
				if e.calls[p].ID == "" {
					e.calls[p].ID = tc.ID
				}
				if e.calls[p].Function.Name == "" {
					e.calls[p].Function.Name = tc.Function.Name
				}
				e.calls[p].Function.Arguments += tc.Function.Arguments
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				e.finish = openai.FinishReason(*ch.FinishReason)
				if e.finishEvent < 0 {
					e.finishEvent = event
				}
			}
		}
		event++
	}
	return e
}

// assembled is what OpenAIStreaming and an Assembler made of a stream.
type assembled struct {
	deltas    []agentkit.Delta
	early     int // deltas returned by Add, before Finish
	msg       openai.ChatCompletionMessage
	finish    openai.FinishReason
	usage     *openai.Usage
	recvErr   error // the error that ended the stream, nil for io.EOF
	partial   openai.ChatCompletionMessage
	lostCalls int
}

func assembleStream(t *testing.T, body []byte, via replayClient) assembled {
	t.Helper()
	srv := newReplayServer(t, recording.Exchange{Status: http.StatusOK, ContentType: "text/event-stream", Response: body})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := srv.model(via).CreateChatCompletionStream(ctx, openai.ChatCompletionRequest{
		Model: "replay", Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "replay"}}})
	if err != nil {
		t.Fatalf("CreateChatCompletionStream: %v", err)
	}
	defer st.Close()
	var a agentkit.Assembler
	var out assembled
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.recvErr = err
			out.partial, out.lostCalls = a.Partial()
			return out
		}
		out.deltas = a.Add(out.deltas, c)
	}
	out.early = len(out.deltas)
	out.deltas, out.msg, out.finish, out.usage = a.Finish(out.deltas)
	return out
}

// replayAssemble checks the assembly of one recorded stream, as recorded, with SSE comment
// lines and CRLF line ends, and cut before its finish chunk.
func replayAssemble(t *testing.T, body []byte, via replayClient) {
	want := readSSE(t, body)
	check := func(t *testing.T, got assembled) {
		t.Helper()
		if got.recvErr != nil {
			t.Fatalf("Recv: %v", got.recvErr)
		}
		wantMsg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: want.content, ReasoningContent: want.reasoning, ToolCalls: want.calls}
		if diff := cmp.Diff(wantMsg, got.msg); diff != "" {
			t.Errorf("assembled message (-recorded +got):\n%s", diff)
		}
		if got.finish != want.finish {
			t.Errorf("finish reason %q, recorded %q", got.finish, want.finish)
		}
		switch {
		case want.usage < 0 && got.usage != nil:
			t.Errorf("usage %+v, none recorded", *got.usage)
		case want.usage >= 0 && (got.usage == nil || got.usage.TotalTokens != want.usage):
			t.Errorf("usage %+v, recorded total_tokens %d", got.usage, want.usage)
		}
		checkDeltas(t, got, len(want.calls))
	}
	t.Run("as-recorded", func(t *testing.T) { check(t, assembleStream(t, body, via)) })
	t.Run("sse-comments-crlf", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(": OPENROUTER PROCESSING\r\n\r\n")
		for _, line := range strings.SplitAfter(string(body), "\n") {
			b.WriteString(strings.TrimSuffix(line, "\n"))
			if strings.HasSuffix(line, "\n") {
				b.WriteString("\r\n")
			}
			if strings.HasPrefix(line, "data:") && !strings.Contains(line, "[DONE]") {
				b.WriteString(": keep-alive\r\n")
			}
		}
		check(t, assembleStream(t, []byte(b.String()), via))
	})
	if want.finishEvent >= 0 {
		t.Run("cut-before-finish", func(t *testing.T) {
			var kept []string
			event := 0
			for _, line := range strings.SplitAfter(string(body), "\n") {
				if strings.HasPrefix(line, "data:") {
					if event == want.finishEvent {
						break
					}
					event++
				}
				kept = append(kept, line)
			}
			cut := []byte(strings.Join(kept, ""))
			before := readSSE(t, cut)
			got := assembleStream(t, cut, via)
			if !errors.Is(got.recvErr, agentkit.ErrStreamTruncated) {
				t.Fatalf("Recv on a stream cut before its finish chunk: %v, want ErrStreamTruncated", got.recvErr)
			}
			wantPartial := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: before.content, ReasoningContent: before.reasoning}
			if diff := cmp.Diff(wantPartial, got.partial); diff != "" {
				t.Errorf("Partial (-want +got):\n%s", diff)
			}
			if got.lostCalls != len(before.calls) {
				t.Errorf("Partial lost %d calls, want %d", got.lostCalls, len(before.calls))
			}
		})
	}
}

// checkDeltas checks the Delta sequence: text and reasoning deltas rebuild the message,
// every call has one start and, after it, one done, and every call but the last was done
// before Finish (a later call began after its arguments were complete).
func checkDeltas(t *testing.T, got assembled, calls int) {
	t.Helper()
	var text, reasoning strings.Builder
	start := make([]int, calls)
	done := make([]int, calls)
	for i := range start {
		start[i], done[i] = -1, -1
	}
	for i, d := range got.deltas {
		switch d.Kind {
		case agentkit.DeltaText:
			text.WriteString(d.Text)
		case agentkit.DeltaReasoning:
			reasoning.WriteString(d.Text)
		case agentkit.DeltaToolCallStart, agentkit.DeltaToolCallDone:
			if d.Call < 0 || d.Call >= calls {
				t.Fatalf("delta %d: call %d of %d", i, d.Call, calls)
			}
			slot := &start[d.Call]
			if d.Kind == agentkit.DeltaToolCallDone {
				slot = &done[d.Call]
			}
			if *slot >= 0 {
				t.Errorf("delta %d: a second %s for call %d", i, d.Kind, d.Call)
			}
			*slot = i
		default:
			t.Errorf("delta %d: unexpected kind %q", i, d.Kind)
		}
	}
	if text.String() != got.msg.Content || reasoning.String() != got.msg.ReasoningContent {
		t.Errorf("deltas rebuild text %q and reasoning %q; the message has %q and %q", text.String(), reasoning.String(), got.msg.Content, got.msg.ReasoningContent)
	}
	for c := range calls {
		switch {
		case start[c] < 0 || done[c] < 0 || done[c] < start[c]:
			t.Errorf("call %d: start at delta %d, done at delta %d", c, start[c], done[c])
		case c < calls-1 && done[c] >= got.early:
			t.Errorf("call %d was done only at Finish, not when call %d began", c, c+1)
		}
	}
}

// streamedModel is a Model that streams every request and assembles the reply: the loop's
// plain path fed by OpenAIStreaming and the Assembler.
type streamedModel struct{ m agentkit.StreamingModel }

// SendsExtras reports whether the model it streams from sends provider extras.
func (s streamedModel) SendsExtras() bool {
	em, ok := s.m.(agentkit.ExtrasModel)
	return ok && em.SendsExtras()
}

func (s streamedModel) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	st, err := s.m.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	defer st.Close()
	var a agentkit.Assembler
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return openai.ChatCompletionResponse{}, err
		}
		a.Add(nil, c)
	}
	_, msg, finish, usage := a.Finish(nil)
	resp := openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: finish}}}
	if usage != nil {
		resp.Usage = *usage
	}
	return resp, nil
}

// recordedRequest is the part of a chat-completions request body the replay reads.
type recordedRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		Reasoning  string          `json:"reasoning_content"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func parseRequest(t *testing.T, body []byte) recordedRequest {
	t.Helper()
	var r recordedRequest
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request body: %v: %.200s", err, body)
	}
	return r
}

// wireMsg is what the replay compares of a request's messages: the assistant messages with
// tool calls and the tool messages, in order.
type wireMsg struct {
	Role       string
	ToolCallID string
	Content    string // tool messages only
	Reasoning  string // compared only where the recording has it
	Calls      []wireCall
}

type wireCall struct{ ID, Name, Args string }

// canonicalArgs returns JSON arguments re-encoded with sorted keys, or the text as it is,
// marked, when it is not JSON.
func canonicalArgs(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "not JSON: " + s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func contentText(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s) // null or parts: ""
	return s
}

func wireOf(r recordedRequest) []wireMsg {
	var out []wireMsg
	for _, m := range r.Messages {
		switch {
		case m.Role == openai.ChatMessageRoleTool:
			out = append(out, wireMsg{Role: m.Role, ToolCallID: m.ToolCallID, Content: contentText(m.Content)})
		case m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0:
			w := wireMsg{Role: m.Role, Reasoning: m.Reasoning}
			for _, c := range m.ToolCalls {
				w.Calls = append(w.Calls, wireCall{ID: c.ID, Name: c.Function.Name, Args: canonicalArgs(c.Function.Arguments)})
			}
			out = append(out, w)
		}
	}
	return out
}

// joinSplitCalls turns runs of (assistant message with calls, its results) into one
// assistant message with all the calls, then all the results.
func joinSplitCalls(ws []wireMsg) []wireMsg {
	var out []wireMsg
	for i := 0; i < len(ws); {
		if len(ws[i].Calls) == 0 {
			out = append(out, ws[i])
			i++
			continue
		}
		joined := wireMsg{Role: ws[i].Role, Reasoning: ws[i].Reasoning}
		var results []wireMsg
		for i < len(ws) && len(ws[i].Calls) > 0 {
			joined.Calls = append(joined.Calls, ws[i].Calls...)
			i++
			for i < len(ws) && ws[i].Role == openai.ChatMessageRoleTool {
				results = append(results, ws[i])
				i++
			}
		}
		out = append(append(out, joined), results...)
	}
	return out
}

// placeholderIDs replaces tool call ids by their order of first appearance.
func placeholderIDs(ws []wireMsg) {
	ids := map[string]string{}
	id := func(s string) string {
		if _, ok := ids[s]; !ok {
			ids[s] = fmt.Sprintf("#%d", len(ids)+1)
		}
		return ids[s]
	}
	for i := range ws {
		if ws[i].ToolCallID != "" {
			ws[i].ToolCallID = id(ws[i].ToolCallID)
		}
		for k := range ws[i].Calls {
			ws[i].Calls[k].ID = id(ws[i].Calls[k].ID)
		}
	}
}

// turn is what one recorded response holds, read without the code under test.
type turn struct {
	stream bool
	calls  []openai.ToolCall
	text   string
	usage  int
}

func readResponse(t *testing.T, x recording.Exchange) turn {
	t.Helper()
	if x.Stream() {
		e := readSSE(t, x.Response)
		return turn{stream: true, calls: e.calls, text: e.content, usage: max(e.usage, 0)}
	}
	var r struct {
		Choices []struct {
			Message struct {
				Content   *string `json:"content"`
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(x.Response, &r); err != nil || len(r.Choices) == 0 {
		t.Fatalf("response body: %v: %.200s", err, x.Response)
	}
	tr := turn{usage: r.Usage.TotalTokens}
	m := r.Choices[0].Message
	if m.Content != nil {
		tr.text = *m.Content
	}
	for _, c := range m.ToolCalls {
		tr.calls = append(tr.calls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: c.Function.Name, Arguments: c.Function.Arguments}})
	}
	return tr
}

// replayTools returns permissive tools for names whose results are the tool messages of
// next, the recorded request that follows (by tool_call_id; by name, in order, for calls
// whose id the loop assigned), or a synthetic result when there is none.
func replayTools(names []string, next *recordedRequest) []*tool.Tool {
	byID := map[string]string{}
	byName := map[string][]string{}
	if next != nil {
		var last []string // ids of the last assistant message with calls
		callName := map[string]string{}
		for _, m := range next.Messages {
			if m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0 {
				last = last[:0]
				for _, c := range m.ToolCalls {
					last = append(last, c.ID)
					callName[c.ID] = c.Function.Name
				}
			}
			if m.Role == openai.ChatMessageRoleTool {
				byID[m.ToolCallID] = contentText(m.Content)
			}
		}
		for _, id := range last {
			if r, ok := byID[id]; ok {
				byName[callName[id]] = append(byName[callName[id]], r)
			}
		}
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	var tools []*tool.Tool
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		t, err := tool.Raw(name, "replayed tool "+name, json.RawMessage(`{"type":"object"}`),
			func(ctx context.Context, _ json.RawMessage) (string, error) {
				call, _ := tool.CallFromContext(ctx)
				mu.Lock()
				defer mu.Unlock()
				if r, ok := byID[call.ID]; ok {
					return r, nil
				}
				if q := byName[name]; len(q) > 0 {
					byName[name] = q[1:]
					return q[0], nil
				}
				return "result of " + call.ID, nil
			})
		if err != nil {
			panic(err)
		}
		tools = append(tools, t)
	}
	return tools
}

// replayRuns replays the exchanges of one run through Agent.RunMessages and, when they are
// streamed, through Agent.RunMessagesStream too.
func replayRuns(t *testing.T, rel string, xs []recording.Exchange, at int, via replayClient) {
	turns := make([]turn, len(xs))
	for i, x := range xs {
		turns[i] = readResponse(t, x)
	}
	t.Run(fmt.Sprintf("loop-%d", at), func(t *testing.T) { replayLoop(t, rel, xs, turns, false, via) })
	if xs[0].Stream() {
		t.Run(fmt.Sprintf("runstream-%d", at), func(t *testing.T) { replayLoop(t, rel, xs, turns, true, via) })
	}
}

// replayLoop replays the exchanges of one run, whose responses hold turns, through the agent
// loop: RunMessages (a streamed recording through streamedModel), or RunMessagesStream when
// viaRunStream. It returns the request bodies the loop sent.
func replayLoop(t *testing.T, rel string, xs []recording.Exchange, turns []turn, viaRunStream bool, via replayClient) [][]byte {
	quirk := replayQuirks[rel]
	if len(turns[0].calls) == 0 {
		t.Fatalf("the first response of the run has no tool calls: nothing to replay")
	}

	var first recordedRequest
	seed := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "replay"}}
	model := "gpt-4o"
	if xs[0].Request != nil {
		first = parseRequest(t, xs[0].Request)
		model = first.Model
		if err := json.Unmarshal(xs[0].Request, &struct {
			Messages *[]openai.ChatCompletionMessage `json:"messages"`
		}{&seed}); err != nil {
			t.Fatalf("recorded messages: %v", err)
		}
	}
	var names []string
	for _, f := range first.Tools {
		names = append(names, f.Function.Name)
	}
	for _, tr := range turns {
		for _, c := range tr.calls {
			names = append(names, c.Function.Name)
		}
	}
	var next *recordedRequest
	if len(xs) > 1 {
		r := parseRequest(t, xs[1].Request)
		next = &r
	}

	srv := newReplayServer(t, xs...)
	var m agentkit.Model = srv.model(via)
	if turns[0].stream && !viaRunStream {
		m = streamedModel{srv.model(via)}
	}
	agent := agentkit.New(m, &agentkit.Options{Model: model, Tools: replayTools(names, next)})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var res *agentkit.Result
	var err error
	if viaRunStream {
		s := agent.RunMessagesStream(ctx, seed)
		for range s.Events() {
		}
		res, err = s.Result()
	} else {
		res, err = agent.RunMessages(ctx, seed)
	}
	if err != nil {
		t.Fatalf("run: %v (stop %s)", err, res.Stop)
	}
	if res.Stop != agentkit.StopAnswered {
		t.Errorf("Stop = %s, want %s", res.Stop, agentkit.StopAnswered)
	}
	if err := agentkit.ValidateHistory(res.Messages); err != nil {
		t.Errorf("transcript: %v", err)
	}

	sent := srv.bodies()
	schema := replaySchema(t)
	for i, body := range sent {
		if err := schema.Validate(body); err != nil {
			t.Errorf("request %d does not match OpenAI's OpenAPI schema: %v", i+1, err)
		}
	}
	wantRequests, wantOutput, wantUsage := len(xs), turns[len(turns)-1].text, 0
	for _, tr := range turns {
		wantUsage += tr.usage
	}
	if len(turns[len(turns)-1].calls) > 0 { // the recording ends on tool calls
		wantRequests, wantOutput = len(xs)+1, syntheticAnswer
	}
	if len(sent) != wantRequests {
		t.Fatalf("the loop sent %d requests, want %d", len(sent), wantRequests)
	}
	if res.Output != wantOutput {
		t.Errorf("Output = %q, want %q", res.Output, wantOutput)
	}
	if res.Usage.TotalTokens != wantUsage {
		t.Errorf("Usage.TotalTokens = %d, want the recorded %d", res.Usage.TotalTokens, wantUsage)
	}

	// Every request after the first against the recorded one (or, past the recording, the
	// recorded calls answered with the synthetic results).
	for k := 1; k < len(sent); k++ {
		got := wireOf(parseRequest(t, sent[k]))
		var want []wireMsg
		if k < len(xs) {
			want = wireOf(parseRequest(t, xs[k].Request))
			if quirk.argsFromResponse {
				args := map[string]string{}
				for _, c := range turns[k-1].calls {
					args[c.ID] = canonicalArgs(c.Function.Arguments)
				}
				for i := range want {
					for j := range want[i].Calls {
						if a, ok := args[want[i].Calls[j].ID]; ok {
							want[i].Calls[j].Args = a
						}
					}
				}
			}
		} else {
			want = wireOf(parseRequest(t, sent[k-1])) // the history the loop sent before
			w := wireMsg{Role: openai.ChatMessageRoleAssistant}
			var results []wireMsg
			for _, c := range turns[k-1].calls {
				w.Calls = append(w.Calls, wireCall{ID: c.ID, Name: c.Function.Name, Args: canonicalArgs(c.Function.Arguments)})
				results = append(results, wireMsg{Role: openai.ChatMessageRoleTool, ToolCallID: c.ID, Content: "result of " + c.ID})
			}
			want = append(append(want, w), results...)
		}
		for i := range want {
			for j := range want[i].Calls {
				if want[i].Calls[j].Args == canonicalArgs("") {
					// A call without arguments is sent with "{}" (providers reject ""); the
					// recording's client sent them as they came.
					want[i].Calls[j].Args = "{}"
				}
			}
			if quirk.emptyResults && want[i].Role == openai.ChatMessageRoleTool && want[i].Content == "" {
				want[i].Content = tool.EmptyContent
			}
		}
		if quirk.callsSplit {
			want = joinSplitCalls(want)
		}
		if quirk.clientInserted && len(want) > len(got) {
			want = want[:len(got)]
		}
		for i := range got {
			if i < len(want) && want[i].Reasoning == "" {
				got[i].Reasoning = ""
			}
		}
		if quirk.ownIDs {
			placeholderIDs(got)
			placeholderIDs(want)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d: tool calls and tool messages (-recorded +sent):\n%s", k+1, diff)
		}
	}
	return sent
}

// replayError checks that a recorded error response reaches the caller as the provider's
// error, from Run and from a stream request.
func replayError(t *testing.T, x recording.Exchange, via replayClient) {
	var body struct {
		Error struct {
			Message string `json:"message"`
			Code    any    `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(x.Response, &body); err != nil || body.Error.Message == "" {
		t.Fatalf("error body: %v: %.200s", err, x.Response)
	}
	seed := []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hello"}}
	model := "gpt-4o"
	var names []string
	if x.Request != nil {
		r := parseRequest(t, x.Request)
		model = r.Model
		for _, f := range r.Tools {
			names = append(names, f.Function.Name)
		}
		if err := json.Unmarshal(x.Request, &struct {
			Messages *[]openai.ChatCompletionMessage `json:"messages"`
		}{&seed}); err != nil {
			t.Fatalf("recorded messages: %v", err)
		}
	}
	checkAPIError := func(t *testing.T, err error) {
		t.Helper()
		var apiErr *openai.APIError
		if !errors.As(err, &apiErr) {
			t.Fatalf("error %v (%T) is not an *openai.APIError", err, err)
		}
		if apiErr.HTTPStatusCode != x.Status || apiErr.Message != body.Error.Message {
			t.Errorf("APIError status %d message %q, recorded %d %q", apiErr.HTTPStatusCode, apiErr.Message, x.Status, body.Error.Message)
		}
		if body.Error.Code != nil && fmt.Sprint(apiErr.Code) != fmt.Sprint(body.Error.Code) {
			t.Errorf("APIError code %v, recorded %v", apiErr.Code, body.Error.Code)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	for _, streaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", streaming), func(t *testing.T) {
			srv := newReplayServer(t, x)
			var m agentkit.Model = srv.model(via)
			if streaming {
				m = streamedModel{srv.model(via)}
			}
			agent := agentkit.New(m, &agentkit.Options{Model: model, Tools: replayTools(names, nil)})
			res, err := agent.RunMessages(ctx, seed)
			checkAPIError(t, err)
			if res == nil {
				t.Fatal("nil Result")
			}
			if res.Stop != agentkit.StopModelError {
				t.Errorf("Stop = %s, want %s", res.Stop, agentkit.StopModelError)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Errorf("transcript: %v", err)
			}
			if len(res.Messages) != len(seed) {
				t.Errorf("transcript has %d messages, want the %d of the input", len(res.Messages), len(seed))
			}
			if n := len(srv.bodies()); n != 1 {
				t.Errorf("%d requests sent, want 1", n)
			}
		})
	}
}

// The adapter on streams that break in other ways than the recordings show.
func TestOpenAIStreamingBrokenStreams(t *testing.T) {
	const (
		role  = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n"
		call  = "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":\"}}]}}]}\n\n"
		fin   = "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
		apiEr = "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\",\"code\":\"overloaded\"}}\n\n"
	)
	tests := []struct {
		name      string
		body      string
		abort     bool // close the connection without ending the response
		wantErr   func(error) bool
		wantText  string
		wantCalls int
	}{
		{"ends without finish_reason nor [DONE]", role + call, false,
			func(err error) bool {
				return errors.Is(err, agentkit.ErrStreamTruncated) && errors.Is(err, io.ErrUnexpectedEOF)
			}, "Hel", 1},
		{"cut inside an event", role + call[:40], false,
			func(err error) bool { return errors.Is(err, agentkit.ErrStreamTruncated) }, "Hel", 0},
		{"connection dropped", role + call, true,
			func(err error) bool { return errors.Is(err, agentkit.ErrStreamTruncated) }, "Hel", 1},
		{"connection dropped after the finish_reason: a normal end", role + fin, true,
			func(err error) bool { return err == nil }, "Hel", 0},
		{"error event mid-stream", role + apiEr, false,
			func(err error) bool {
				var e *openai.APIError
				return errors.As(err, &e) && e.Message == "overloaded"
			}, "Hel", 0},
		{"finish_reason then end without [DONE]: a normal end", role + fin, false,
			func(err error) bool { return err == nil }, "Hel", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, tt.body)
				w.(http.Flusher).Flush()
				if tt.abort {
					panic(http.ErrAbortHandler)
				}
			}))
			defer srv.Close()
			cfg := openai.DefaultConfig("test")
			cfg.BaseURL = srv.URL + "/v1"
			st, err := agentkit.OpenAIStreaming(openai.NewClientWithConfig(cfg)).CreateChatCompletionStream(context.Background(),
				openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var a agentkit.Assembler
			var end error
			for {
				c, err := st.Recv()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					end = err
					break
				}
				a.Add(nil, c)
			}
			if !tt.wantErr(end) {
				t.Fatalf("stream ended with %v", end)
			}
			msg, lost := a.Partial()
			if msg.Content != tt.wantText || msg.ToolCalls != nil || lost != tt.wantCalls {
				t.Errorf("Partial = %q with calls %v, %d lost; want %q, none, %d lost", msg.Content, msg.ToolCalls, lost, tt.wantText, tt.wantCalls)
			}
		})
	}
}

// TestOpenAIStreamingIsAModel: the adapter also answers plain requests, so a loop can use
// one value for both.
func TestOpenAIStreamingIsAModel(t *testing.T) {
	srv := newReplayServer(t)
	m := agentkit.OpenAIStreaming(srv.client())
	resp, err := m.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Choices[0].Message.Content; got != syntheticAnswer {
		t.Errorf("content %q, want %q", got, syntheticAnswer)
	}
	defer func() {
		if recover() == nil {
			t.Error("OpenAIStreaming(nil) did not panic")
		}
	}()
	agentkit.OpenAIStreaming(nil)
}

// BenchmarkReplayStream puts BenchmarkAssemble in perspective: a recorded two-call stream
// (openai-python-sse, 25 events) served over loopback HTTP, decoded by go-openai and
// assembled.
func BenchmarkReplayStream(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(replayDir(b), "openai-python-sse", "gpt-4o-2024-08-06_parallel_tools_stream.sse"))
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	cfg := openai.DefaultConfig("test")
	cfg.BaseURL = srv.URL + "/v1"
	m := agentkit.OpenAIStreaming(openai.NewClientWithConfig(cfg))
	req := openai.ChatCompletionRequest{Model: "gpt-4o", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hi"}}}
	var ds []agentkit.Delta
	chunks := 0
	for b.Loop() {
		var a agentkit.Assembler
		st, err := m.CreateChatCompletionStream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for {
			c, err := st.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			chunks++
			ds = a.Add(ds[:0], c)
		}
		st.Close()
		if _, msg, _, _ := a.Finish(ds[:0]); len(msg.ToolCalls) != 2 {
			b.Fatalf("%d calls", len(msg.ToolCalls))
		}
	}
	b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
}
