package adk

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"google.golang.org/adk/v2/model/openaimodel"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// TestBehaviour is ../behaviour_test.go for adk-go. adk's model interface carries decoded
// arguments (genai.FunctionCall.Args is a map), so malformed argument text never reaches its
// loop: what happens to it is decided by the model adapter. The malformed cases therefore run
// adk's own OpenAI adapter (model/openaimodel) against an in-process http.RoundTripper that
// serves Responses API bodies: no network.
func TestBehaviour(t *testing.T) {
	ctx := context.Background()
	row := script.Behaviour{Framework: Name}
	rec := &script.Recorder{}
	script.TakeLog()
	_, err := Agent(script.Order(rec))(ctx, "slow, fast")
	row.Order = script.OrderOutcome(err, rec, script.TakeLog())

	rec = &script.Recorder{}
	_, err = Agent(script.Bad(rec, script.UnknownName, `{"city":"北京"}`, map[string]any{"city": "北京"}))(ctx, script.Input)
	row.Unknown = script.FailureOutcome(err, rec)

	row.Comma = viaOpenAIModel(t, script.TrailingComma) + " (openaimodel)"
	row.NotJSON = viaOpenAIModel(t, script.NotJSON) + " (openaimodel)"
	t.Log("\n" + script.Table([]script.Behaviour{row}))
}

// viaOpenAIModel runs one call of get_weather with args through adk's OpenAI adapter.
func viaOpenAIModel(t *testing.T, args string) string {
	rt := &responsesServer{args: args}
	m, err := openaimodel.NewModel(context.Background(), "gpt-4o-mini", &openaimodel.ClientConfig{APIKey: "test", BaseURL: "http://in-process/v1", HTTPClient: &http.Client{Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	s := script.Round() // for its tools: get_weather, calculate
	_, err = agentOn(s, m)(context.Background(), script.Input)
	return script.FailureOutcome(err, &rt.rec)
}

// responsesServer answers POST /v1/responses in process: first a function_call of get_weather
// with its args, then, when the request carries function_call_output items, a text.
type responsesServer struct {
	args string
	rec  script.Recorder
	mu   sync.Mutex
}

func (s *responsesServer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body struct {
		Input []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Output any    `json:"output"`
		} `json:"input"`
	}
	b, _ := io.ReadAll(req.Body)
	_ = json.Unmarshal(b, &body)
	v := &script.View{}
	for _, it := range body.Input {
		if it.Type == "function_call_output" {
			out, _ := json.Marshal(it.Output)
			v.Results = append(v.Results, script.Result{ID: it.CallID, Content: string(out)})
		}
	}
	bad := script.Bad(&s.rec, "get_weather", s.args, nil)
	r := bad.Next(v)
	var output any
	if len(r.Calls) > 0 {
		c := r.Calls[0]
		output = []any{map[string]any{"type": "function_call", "id": "fc_1", "call_id": c.ID, "name": c.Name, "arguments": c.Args, "status": "completed"}}
	} else {
		output = []any{map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}}}
	}
	resp, _ := json.Marshal(map[string]any{"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-4o-mini", "status": "completed", "output": output,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}})
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(strings.NewReader(string(resp))), Request: req}, nil
}
