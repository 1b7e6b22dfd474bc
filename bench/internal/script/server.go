package script

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// Handler returns an OpenAI-compatible server answering from s, for the benchmarks that drive
// each framework through its own OpenAI client over loopback (httptest):
//
//   - POST /v1/chat/completions answers with a chat.completion JSON body, or with
//     chat.completion.chunk server-sent events when the request streams;
//   - POST /v1/responses (the Responses API, the only one adk-go's OpenAI model speaks)
//     answers with a response JSON body; it does not stream.
//
// It reads of the request what the in-process adapters read (a [View]: the latest user
// message and the tool results after the latest assistant message). Its bodies are encoded
// once per reply, as the in-process adapters build their responses once, so the cost of a
// model call through HTTP is the client's: encoding the request, the round trip, decoding the
// response. The server's own decoding of each request is in every framework's figures alike.
func Handler(s *Script) http.Handler {
	h := &handler{s: s}
	for _, r := range s.Replies {
		h.chat = append(h.chat, mustJSON(chatCompletion(r)))
		h.chunks = append(h.chunks, chatChunks(r, false))
		h.chunksUsage = append(h.chunksUsage, chatChunks(r, true))
		h.responses = append(h.responses, mustJSON(response(r)))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", h.chatCompletions)
	mux.HandleFunc("POST /v1/responses", h.responsesAPI)
	return mux
}

type handler struct {
	s                                    *Script
	chat, chunks, chunksUsage, responses [][]byte
}

// chatRequest is what the server reads of a chat completions request.
type chatRequest struct {
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
}

func (h *handler) chatCompletions(w http.ResponseWriter, req *http.Request) {
	var r chatRequest
	if err := json.NewDecoder(req.Body).Decode(&r); err != nil {
		http.Error(w, "script: "+err.Error(), http.StatusBadRequest)
		return
	}
	msgs := r.Messages
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == "tool" {
		i--
	}
	v := &View{}
	for _, m := range msgs[i:] {
		v.Results = append(v.Results, Result{ID: m.ToolCallID, Content: text(m.Content)})
	}
	for j := i - 1; j >= 0; j-- {
		if msgs[j].Role == "user" {
			v.LastUser = text(msgs[j].Content)
			break
		}
	}
	n := h.s.Next(v).N
	switch {
	case !r.Stream:
		write(w, "application/json", h.chat[n])
	case r.StreamOptions.IncludeUsage:
		write(w, "text/event-stream", h.chunksUsage[n])
	default:
		write(w, "text/event-stream", h.chunks[n])
	}
}

// responsesRequest is what the server reads of a Responses API request.
type responsesRequest struct {
	Stream bool            `json:"stream"`
	Input  json.RawMessage `json:"input"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

func (h *handler) responsesAPI(w http.ResponseWriter, req *http.Request) {
	var r responsesRequest
	if err := json.NewDecoder(req.Body).Decode(&r); err != nil {
		http.Error(w, "script: "+err.Error(), http.StatusBadRequest)
		return
	}
	if r.Stream {
		http.Error(w, "script: the Responses API is served without streaming", http.StatusBadRequest)
		return
	}
	v := &View{}
	var items []responsesItem
	if len(r.Input) > 0 && r.Input[0] == '"' {
		v.LastUser = text(r.Input)
	} else if err := json.Unmarshal(r.Input, &items); err != nil {
		http.Error(w, "script: input: "+err.Error(), http.StatusBadRequest)
		return
	}
	i := len(items)
	for i > 0 && items[i-1].Type == "function_call_output" {
		i--
	}
	for _, it := range items[i:] {
		v.Results = append(v.Results, Result{ID: it.CallID, Content: text(it.Output)})
	}
	for j := i - 1; j >= 0; j-- {
		if items[j].Role == "user" {
			v.LastUser = text(items[j].Content)
			break
		}
	}
	write(w, "application/json", h.responses[h.s.Next(v).N])
}

func write(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

// text is a message's content as text: a JSON string, or the texts of an array of parts
// ({"type": "text", "text": ...} in chat completions, "input_text" in the Responses API).
func text(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var s string
	for _, p := range parts {
		s += p.Text
	}
	return s
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("script: " + err.Error())
	}
	return b
}

const created = 1764547200

var usage = map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}

func toolCalls(r *Reply, indexed bool) []map[string]any {
	var calls []map[string]any
	for i, c := range r.Calls {
		call := map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}}
		if indexed {
			call["index"] = i
		}
		calls = append(calls, call)
	}
	return calls
}

func finishReason(r *Reply) string {
	if len(r.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

// chatCompletion is r as a chat.completion object.
func chatCompletion(r *Reply) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if r.Text != "" {
		msg["content"] = r.Text
	}
	if len(r.Calls) > 0 {
		msg["tool_calls"] = toolCalls(r, false)
	}
	return map[string]any{
		"id": "chatcmpl-" + strconv.Itoa(r.N), "object": "chat.completion", "created": created, "model": "gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": finishReason(r)}},
		"usage":   usage,
	}
}

// chatChunks is r as the server-sent events of a streamed chat completion: the role, the
// text or every tool call whole, the finish reason, the usage when asked for, [DONE].
func chatChunks(r *Reply, withUsage bool) []byte {
	var b bytes.Buffer
	chunk := func(choices []any, extra map[string]any) {
		c := map[string]any{"id": "chatcmpl-" + strconv.Itoa(r.N), "object": "chat.completion.chunk", "created": created, "model": "gpt-4o-mini", "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		b.WriteString("data: ")
		b.Write(mustJSON(c))
		b.WriteString("\n\n")
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	if r.Text != "" {
		chunk(delta(map[string]any{"content": r.Text}, nil), nil)
	}
	if len(r.Calls) > 0 {
		chunk(delta(map[string]any{"tool_calls": toolCalls(r, true)}, nil), nil)
	}
	chunk(delta(map[string]any{}, finishReason(r)), nil)
	if withUsage {
		chunk([]any{}, map[string]any{"usage": usage})
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// response is r as a Responses API response object.
func response(r *Reply) map[string]any {
	var output []any
	for _, c := range r.Calls {
		output = append(output, map[string]any{"type": "function_call", "id": "fc_" + c.ID, "call_id": c.ID, "name": c.Name, "arguments": c.Args, "status": "completed"})
	}
	if r.Text != "" {
		output = append(output, map[string]any{"type": "message", "id": "msg_" + strconv.Itoa(r.N), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}})
	}
	return map[string]any{"id": "resp_" + strconv.Itoa(r.N), "object": "response", "created_at": created, "model": "gpt-4o-mini", "status": "completed",
		"output": output, "usage": map[string]any{"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}}
}
