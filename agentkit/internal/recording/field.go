package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Field is one recording of the folder field/ (see its SOURCES.md): a response, the request
// that produced it when recorded, and the next exchange of the same client when recorded.
type Field struct {
	// ID is the recording's folder name.
	ID string
	// Provider names the provider front that answered.
	Provider string
	// Tools are the names of the tools the recorded request offered.
	Tools []string
	// Exchanges holds the response (with its request when recorded) and then, when
	// recorded, the follow-up exchange: the request the recording's own client sent with
	// the tool results, and its response.
	Exchanges []Exchange
	// Expected is what the response holds, read by the recordings' own independent parser.
	Expected FieldExpected
	// Followup is what the follow-up response holds; nil when there is none.
	Followup *FieldExpected
	// Replayed names the fields the recording's client sent back on the assistant message
	// (MessageFields) and on its tool calls (ToolCallFields) in the follow-up request.
	Replayed struct {
		MessageFields  []string `json:"message_fields"`
		ToolCallFields []string `json:"tool_call_fields"`
	}
}

// FieldExpected is a manifest's reading of one response.
type FieldExpected struct {
	Content          string `json:"content"`
	ReasoningContent string `json:"reasoning_content"`
	// Reasoning is the text of the "reasoning" field (OpenRouter, Groq), as opposed to
	// ReasoningContent ("reasoning_content").
	Reasoning string `json:"reasoning_field"`
	ToolCalls []struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"tool_calls"`
	// FinishReason is nil when the response has none.
	FinishReason *string `json:"finish_reason"`
	// TotalTokens is the usage's total_tokens; nil when the response reports none.
	TotalTokens *int `json:"total_tokens"`
	// StreamErrors holds the payloads of the SSE error events of a stream.
	StreamErrors []json.RawMessage `json:"stream_errors"`
	// Error is the error object of an error response.
	Error map[string]any `json:"error"`
}

// FieldDirs lists the recording folders of dir/field, sorted.
func FieldDirs(dir string) ([]string, error) {
	ms, err := filepath.Glob(filepath.Join(dir, "field", "*", "manifest.json"))
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(ms))
	for i, m := range ms {
		dirs[i] = filepath.Dir(m)
	}
	sort.Strings(dirs)
	return dirs, nil
}

type fieldManifest struct {
	ID       string        `json:"id"`
	Provider string        `json:"provider"`
	Tools    []string      `json:"tools"`
	Expected FieldExpected `json:"expected"`
	fieldPart
	Followup *struct {
		fieldPart
		Expected FieldExpected `json:"expected"`
		Replayed json.RawMessage
	} `json:"followup"`
}

// fieldPart is what a manifest says of one exchange.
type fieldPart struct {
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers"`
	Framing string              `json:"framing"`
	Body    string              `json:"body"`
	Request string              `json:"request"`
}

// LoadField reads the recording in the folder dir.
func LoadField(dir string) (*Field, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m fieldManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("recording: %s: %w", dir, err)
	}
	f := &Field{ID: m.ID, Provider: m.Provider, Tools: m.Tools, Expected: m.Expected}
	x, err := m.fieldPart.exchange(dir)
	if err != nil {
		return nil, err
	}
	f.Exchanges = append(f.Exchanges, x)
	if fu := m.Followup; fu != nil {
		x, err := fu.fieldPart.exchange(dir)
		if err != nil {
			return nil, err
		}
		f.Exchanges = append(f.Exchanges, x)
		f.Followup = &fu.Expected
		if len(fu.Replayed) > 0 {
			if err := json.Unmarshal(fu.Replayed, &f.Replayed); err != nil {
				return nil, fmt.Errorf("recording: %s: replayed: %w", dir, err)
			}
		}
	}
	return f, nil
}

func (p fieldPart) exchange(dir string) (Exchange, error) {
	x := Exchange{Method: http.MethodPost, Status: p.Status}
	for k, v := range p.Headers {
		if strings.EqualFold(k, "Content-Type") && len(v) > 0 {
			x.ContentType = v[0]
		}
	}
	body, err := os.ReadFile(filepath.Join(dir, p.Body))
	if err != nil {
		return x, err
	}
	if p.Framing == "jsonl" { // one chunk per line, framed as the fixture's own test frames it
		var b bytes.Buffer
		for _, line := range bytes.Split(body, []byte("\n")) {
			if line = bytes.TrimSpace(line); len(line) > 0 {
				b.WriteString("data: ")
				b.Write(line)
				b.WriteString("\n\n")
			}
		}
		b.WriteString("data: [DONE]\n\n")
		body = b.Bytes()
	}
	x.Response = body
	if p.Request != "" {
		if x.Request, err = os.ReadFile(filepath.Join(dir, p.Request)); err != nil {
			return x, err
		}
	}
	return x, nil
}
