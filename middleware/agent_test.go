package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// TestAgentEndToEnd runs the documented stack in a real agent over the real go-openai client
// and an HTTP server: the first model request is rate limited, then the model calls two tools
// in parallel (one refused by the per-run allowlist), then answers.
func TestAgentEndToEnd(t *testing.T) {
	var mu sync.Mutex
	var bodies []openai.ChatCompletionRequest
	step := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req openai.ChatCompletionRequest
		if err := json.Unmarshal(b, &req); err != nil {
			t.Errorf("request body: %v", err)
		}
		mu.Lock()
		step++
		n := step
		bodies = append(bodies, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch n {
		case 1:
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`)
		case 2:
			fmt.Fprint(w, `{"id":"c2","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","tool_calls":[`+
				`{"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"北京\",\"api_key\":\"sk-secret\"}"}},`+
				`{"id":"call_b","type":"function","function":{"name":"delete_user","arguments":"{\"id\":7}"}}]}}],"usage":{"prompt_tokens":50,"completion_tokens":20,"total_tokens":70}}`)
		default:
			fmt.Fprint(w, `{"id":"c3","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"北京晴，26℃。"}}],"usage":{"prompt_tokens":90,"completion_tokens":8,"total_tokens":98}}`)
		}
	}))
	defer srv.Close()

	weather := tool.New("get_weather", "查询城市天气。", func(ctx context.Context, in struct {
		City   string `json:"city"`
		APIKey string `json:"api_key"`
	}) (any, error) {
		return map[string]any{"city": in.City, "now": map[string]any{"temp": 26, "sky": "晴"}}, nil
	})
	deleteUser := tool.New("delete_user", "Delete a user.", func(ctx context.Context, in struct {
		ID int `json:"id"`
	}) (string, error) {
		return "", errors.New("must not run")
	})
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	var s sleeps
	agent := agentkit.New(client(t, srv.URL, true), &agentkit.Options{
		Model: "gpt-4o-mini",
		Tools: []*tool.Tool{weather, deleteUser},
		Middleware: []tool.Middleware{
			middleware.Log(logger, &middleware.LogOptions{Redact: []string{"api_key"}}),
			middleware.WrapErrors(nil),
			middleware.Truncate(4000),
			middleware.AllowFromContext(),
			middleware.Retry(nil),
			middleware.Timeout(5 * time.Second),
			middleware.Structure(),
		},
		ModelMiddleware: []agentkit.ModelMiddleware{
			middleware.ModelLog(logger),
			middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: s.sleep, Rand: func() float64 { return 0 }}),
			middleware.ModelTimeout(5 * time.Second),
		},
	})
	ctx := middleware.WithAllowedTools(context.Background(), "get_weather")
	res, err := agent.Run(ctx, "北京天气怎么样？")
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "北京晴，26℃。" {
		t.Errorf("output %q", res.Output)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second}, s.got()); diff != "" {
		t.Errorf("model retry waits (-want +got):\n%s", diff)
	}
	if len(bodies) != 3 {
		t.Fatalf("%d model requests, want 3", len(bodies))
	}
	var tools []string
	for _, m := range bodies[2].Messages {
		if m.Role == openai.ChatMessageRoleTool {
			tools = append(tools, m.ToolCallID+" | "+m.Content)
		}
	}
	want := []string{
		"call_a | city: 北京\nnow.sky: 晴\nnow.temp: 26",
		"call_b | error: denied\ntool: delete_user\nmessage: the call to delete_user was refused: this tool is not available to this user; the tools available are get_weather. Do not call it again.\n" +
			"next step: " + middleware.DefaultGuidance(tool.KindDenied),
	}
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Errorf("tool messages sent back (-want +got):\n%s", diff)
	}
	if got := res.Steps[0].Calls[0].Result.Original; got != `{"city":"北京","now":{"sky":"晴","temp":26}}` {
		t.Errorf("the record lost the original JSON: %q", got)
	}
	out := logs.String()
	if strings.Contains(out, "sk-secret") || !strings.Contains(out, `\"api_key\":\"[redacted]\"`) {
		t.Errorf("api_key not redacted in the logs:\n%s", out)
	}
	if got := strings.Count(out, `"msg":"model call"`); got != 2 {
		t.Errorf("%d model call records, want 2 (ModelLog outside ModelRetry):\n%s", got, out)
	}
	if got := strings.Count(out, `"msg":"tool call"`); got != 2 {
		t.Errorf("%d tool call records, want 2", got)
	}
}
