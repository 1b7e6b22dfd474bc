package agentkit_test

// Replays the recordings of ../shared/recordings/field (see its SOURCES.md): real traffic
// from 19 provider fronts. Each manifest says what its response holds, read by the
// recordings' own independent parser; the replay checks the SDK against it:
//
//   - a stream is assembled from OpenAIStreaming's chunks by an Assembler: the content,
//     reasoning and tool calls (ids, names, argument text exactly), the finish reason and the
//     usage recorded;
//   - a response with tool calls is replayed through the agent loop (replayLoop), and the
//     follow-up request the loop sends is compared with the one the recording's own client
//     sent: the tool calls and results, and every field the client sent back on the
//     assistant message (reasoning_details, reasoning, reasoning_content) or on its calls;
//   - an error response, and a 200 stream that carries an SSE error event, reach the caller
//     as the provider's error.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit/internal/recording"
	"github.com/toolcall/toolcall/openaichat"
)

func TestReplayFieldRecordings(t *testing.T) {
	dirs, err := recording.FieldDirs(replayDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no recordings in the field folder")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f, err := recording.LoadField(dir)
			if err != nil {
				t.Fatal(err)
			}
			first := f.Exchanges[0]
			switch {
			case first.Status >= 400:
				replayError(t, first, viaOpenAIChat)
				checkErrorDetail(t, first, f.Expected.Error)
				return
			case len(f.Expected.StreamErrors) > 0:
				replayStreamError(t, first, f.Expected.StreamErrors[0])
				return
			}
			if first.Stream() {
				t.Run("assemble", func(t *testing.T) { checkFieldStream(t, first.Response, f.Expected) })
			} else {
				t.Run("decode", func(t *testing.T) { checkFieldJSON(t, first, f.Expected) })
			}
			if len(f.Expected.ToolCalls) == 0 {
				return
			}
			turns := []turn{fieldTurn(first, f.Expected)}
			if f.Followup != nil {
				turns = append(turns, fieldTurn(f.Exchanges[1], *f.Followup))
			}
			ways := []bool{false}
			if first.Stream() {
				ways = append(ways, true)
			}
			for _, viaRunStream := range ways {
				t.Run(fmt.Sprintf("loop/runstream=%v", viaRunStream), func(t *testing.T) {
					sent := replayLoop(t, "field/"+f.ID, f.Exchanges, turns, viaRunStream, viaOpenAIChat)
					if f.Followup != nil && len(sent) > 1 {
						checkReplayedFields(t, f, sent[1])
					}
				})
			}
		})
	}
}

// fieldTurn is what a recorded response holds, as its manifest reads it.
func fieldTurn(x recording.Exchange, e recording.FieldExpected) turn {
	tr := turn{stream: x.Stream(), text: e.Content}
	if e.TotalTokens != nil {
		tr.usage = *e.TotalTokens
	}
	for _, c := range e.ToolCalls {
		tr.calls = append(tr.calls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	return tr
}

// checkFieldStream checks the assembly of a recorded stream against its manifest.
func checkFieldStream(t *testing.T, body []byte, e recording.FieldExpected) {
	got := assembleStream(t, body, viaOpenAIChat)
	if got.recvErr != nil {
		t.Fatalf("Recv: %v", got.recvErr)
	}
	want := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: e.Content, ReasoningContent: e.ReasoningContent}
	for _, c := range e.ToolCalls {
		want.ToolCalls = append(want.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
	}
	msg := got.msg
	msg.FunctionCall = nil // the provider extras: compared in the follow-up request
	if diff := cmp.Diff(want, msg); diff != "" {
		t.Errorf("assembled message (-recorded +got):\n%s", diff)
	}
	wantFinish := ""
	if e.FinishReason != nil {
		wantFinish = *e.FinishReason
	}
	if string(got.finish) != wantFinish {
		t.Errorf("finish reason %q, recorded %q", got.finish, wantFinish)
	}
	switch {
	case e.TotalTokens == nil && got.usage != nil:
		t.Errorf("usage %+v, none recorded", *got.usage)
	case e.TotalTokens != nil && (got.usage == nil || got.usage.TotalTokens != *e.TotalTokens):
		t.Errorf("usage %+v, recorded total_tokens %d", got.usage, *e.TotalTokens)
	}
	checkDeltas(t, got, len(e.ToolCalls))
}

// checkFieldJSON checks openaichat's decoding of a recorded JSON reply against its manifest:
// the content and the tool calls (ids, names, argument text exactly).
func checkFieldJSON(t *testing.T, x recording.Exchange, e recording.FieldExpected) {
	srv := newReplayServer(t, x)
	resp, err := srv.model(viaOpenAIChat).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "replay", Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "replay"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices) == 0 {
		t.Fatal("no choices")
	}
	msg := resp.Choices[0].Message
	var got []wireCall
	for _, c := range msg.ToolCalls {
		got = append(got, wireCall{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
	}
	var want []wireCall
	for _, c := range e.ToolCalls {
		want = append(want, wireCall{ID: c.ID, Name: c.Name, Args: c.Arguments})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool calls (-recorded +decoded):\n%s", diff)
	}
	if msg.Content != e.Content {
		t.Errorf("content %q, recorded %q", msg.Content, e.Content)
	}
}

// checkErrorDetail checks that the upstream detail of an error body (OpenRouter's
// error.metadata.raw) is kept: in the *openaichat.Error and its text.
func checkErrorDetail(t *testing.T, x recording.Exchange, recorded map[string]any) {
	md, _ := recorded["metadata"].(map[string]any)
	raw, _ := md["raw"].(string)
	if raw == "" {
		return
	}
	srv := newReplayServer(t, x)
	_, err := srv.model(viaOpenAIChat).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "replay", Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "replay"}}})
	var pe *openaichat.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want an *openaichat.Error", err)
	}
	if !strings.Contains(string(pe.Metadata), raw[:20]) || !strings.Contains(err.Error(), raw) {
		t.Errorf("the upstream's message %q is lost: metadata %s, error %q", raw, pe.Metadata, err)
	}
}

// replayStreamError checks that a 200 stream carrying an SSE error event reaches the caller
// as the provider's error: its message and code, not a JSON syntax error.
func replayStreamError(t *testing.T, x recording.Exchange, payload json.RawMessage) {
	var e struct {
		Message string `json:"message"`
		Code    any    `json:"code"`
	}
	if err := json.Unmarshal(payload, &e); err != nil || e.Message == "" {
		t.Fatalf("recorded error event: %v: %s", err, payload)
	}
	got := assembleStream(t, x.Response, viaOpenAIChat)
	var apiErr *openai.APIError
	if !errors.As(got.recvErr, &apiErr) {
		t.Fatalf("Recv: %v (%T), want the provider's error as an *openai.APIError", got.recvErr, got.recvErr)
	}
	if apiErr.Message != e.Message || fmt.Sprint(apiErr.Code) != fmt.Sprint(e.Code) {
		t.Errorf("APIError message %q code %v, recorded %q %v", apiErr.Message, apiErr.Code, e.Message, e.Code)
	}
}

// checkReplayedFields checks the provider extras of the follow-up request the loop sent
// (sent), on the assistant message with tool calls: every field the recording's client sent
// back is there, and every field openaichat keeps that the response had goes back
// unchanged — as in the response's message, or for a stream as its fragments merge
// (fieldValues).
func checkReplayedFields(t *testing.T, f *recording.Field, sent []byte) {
	t.Helper()
	var r struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(sent, &r); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var got map[string]json.RawMessage
	for _, m := range r.Messages {
		if _, ok := m["tool_calls"]; ok && string(m["role"]) == `"assistant"` {
			got = m
		}
	}
	want := fieldValues(t, f.Exchanges[0], openaichat.DefaultExtraFields())
	for _, name := range f.Replayed.MessageFields {
		if _, ok := got[name]; !ok {
			t.Errorf("the follow-up lacks the assistant message field %q the recording's client sent back", name)
		}
	}
	for name, w := range want {
		var x, y any
		_ = json.Unmarshal(w, &x)
		_ = json.Unmarshal(got[name], &y)
		if diff := cmp.Diff(x, y); diff != "" {
			t.Errorf("assistant message field %q (-received +sent back):\n%s", name, diff)
		}
	}
}

// fieldValues reads the fields names of the response's message, independently of the SDK: a
// JSON reply's as they are; a stream's merged from the deltas of choice 0 — strings
// concatenated for "reasoning", reasoning_details entries grouped by index and type with
// their text and summary concatenated, the last value of anything else.
func fieldValues(t *testing.T, x recording.Exchange, names []string) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	wanted := map[string]bool{}
	for _, n := range names {
		wanted[n] = true
	}
	if !x.Stream() {
		var r struct {
			Choices []struct {
				Message map[string]json.RawMessage `json:"message"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(x.Response, &r); err != nil || len(r.Choices) == 0 {
			t.Fatalf("response: %v", err)
		}
		for k, v := range r.Choices[0].Message {
			if wanted[k] && string(v) != "null" {
				out[k] = v
			}
		}
		return out
	}
	var reasoning *string
	type key struct {
		index int
		typ   string
	}
	var details []map[string]any
	at := map[key]int{}
	for _, line := range strings.Split(string(x.Response), "\n") {
		payload, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		if !ok || strings.TrimSpace(payload) == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Index int                        `json:"index"`
				Delta map[string]json.RawMessage `json:"delta"`
			} `json:"choices"`
		}
		if json.Unmarshal([]byte(payload), &c) != nil {
			continue
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue
			}
			for k, v := range ch.Delta {
				if !wanted[k] || string(v) == "null" {
					continue
				}
				switch k {
				case "reasoning":
					var s string
					_ = json.Unmarshal(v, &s)
					if reasoning == nil {
						reasoning = new(string)
					}
					*reasoning += s
				case "reasoning_details":
					var ds []map[string]any
					_ = json.Unmarshal(v, &ds)
					for _, d := range ds {
						idx, hasIndex := d["index"].(float64)
						typ, _ := d["type"].(string)
						pos, seen := at[key{int(idx), typ}]
						if !hasIndex || !seen {
							if hasIndex {
								at[key{int(idx), typ}] = len(details)
							}
							details = append(details, d)
							continue
						}
						for dk, dv := range d {
							prev, isText := details[pos][dk].(string)
							frag, fragText := dv.(string)
							if (dk == "text" || dk == "summary") && isText && fragText {
								details[pos][dk] = prev + frag
							} else if dv != nil {
								details[pos][dk] = dv
							}
						}
					}
				default:
					out[k] = v
				}
			}
		}
	}
	if reasoning != nil {
		out["reasoning"], _ = json.Marshal(*reasoning)
	}
	if details != nil {
		out["reasoning_details"], _ = json.Marshal(details)
	}
	return out
}
