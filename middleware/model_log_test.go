package middleware_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
)

func TestModelLog(t *testing.T) {
	srv := newServer(t, apiError(401))
	var buf bytes.Buffer
	m := agentkit.WrapModel(client(t, srv.URL, false), middleware.ModelLog(slog.New(slog.NewJSONHandler(&buf, nil))))
	m.CreateChatCompletion(context.Background(), chatReq) // 401
	m.CreateChatCompletion(context.Background(), chatReq) // 200
	want := []map[string]any{
		{"level": "WARN", "msg": "model call", "model": "gpt-4o-mini", "messages": 1.0, "tools": 0.0, "status": 401.0,
			"error": "error, status code: 401, status: 401 Unauthorized, message: status 401"},
		{"level": "INFO", "msg": "model call", "model": "gpt-4o-mini", "messages": 1.0, "tools": 0.0, "finish_reason": "stop",
			"tool_calls": 0.0, "prompt_tokens": 9.0, "completion_tokens": 2.0, "total_tokens": 11.0},
	}
	if diff := cmp.Diff(want, records(t, &buf)); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	resp, err := wrap(middleware.ModelLog(nil), client(t, srv.URL, false)).CreateChatCompletion(context.Background(), chatReq)
	if err != nil || resp.ID != "chatcmpl-1" {
		t.Errorf("nil logger: %v %v", resp.ID, err)
	}
}
