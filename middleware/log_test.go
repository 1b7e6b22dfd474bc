package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// records decodes the JSON records in buf, dropping the time.
func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		delete(m, "time")
		if _, ok := m["duration"].(float64); !ok {
			t.Errorf("record without a duration: %s", line)
		}
		delete(m, "duration")
		out = append(out, m)
	}
	return out
}

func TestLog(t *testing.T) {
	redact := &middleware.LogOptions{Redact: []string{"password", "Token"}}
	tests := []struct {
		name string
		opts *middleware.LogOptions
		args string
		res  tool.Result
		want []map[string]any
	}{
		{"success", nil, `{"city":"北京"}`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "", "truncated": false,
			"args_bytes": 17.0, "arguments": `{"city":"北京"}`}}},
		{"failure at warn with error and repair", nil, "{'a':1}", tool.Result{Kind: tool.KindToolError, Err: errBackend, Content: "x", Repair: "fixed quotes"}, []map[string]any{{
			"level": "WARN", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "tool_error", "truncated": false,
			"args_bytes": 7.0, "arguments": "{'a':1}", "repair": "fixed quotes", "error": "backend unavailable"}}},
		{"truncated flag", nil, `{}`, tool.Result{Content: "short", Original: "long original"}, []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "", "truncated": true,
			"args_bytes": 2.0, "arguments": "{}"}}},
		{"redacted at any depth, any case, order kept", redact,
			`{"user":"li","Password":"hunter2","auth":{"token":{"v":1},"scope":"r"},"list":[{"password":"p"}],"note":"password"}`,
			tool.Text("ok"), []map[string]any{{
				"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "", "truncated": false, "args_bytes": 115.0,
				"arguments": `{"user":"li","Password":"[redacted]","auth":{"token":"[redacted]","scope":"r"},"list":[{"password":"[redacted]"}],"note":"password"}`}}},
		{"repairable arguments redacted after repair", redact, "```json\n{\"password\":\"x\",}\n```", tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "", "truncated": false, "args_bytes": 29.0,
			"arguments": `{"password":"[redacted]"}`}}},
		{"unparseable arguments hidden when redacting", redact, `password=hunter2`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "", "truncated": false, "args_bytes": 16.0,
			"arguments": "[not JSON, not shown]"}}},
		{"arguments omitted", &middleware.LogOptions{OmitArguments: true}, `{"secret":1}`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "", "truncated": false, "args_bytes": 12.0}}},
		{"success below the handler's level", &middleware.LogOptions{Level: slog.LevelDebug}, `{}`, tool.Text("ok"), nil},
		{"failure raised to warn", &middleware.LogOptions{Level: slog.LevelDebug}, `{}`, tool.Failure(tool.KindDenied, errBackend), []map[string]any{{
			"level": "WARN", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "denied", "truncated": false,
			"args_bytes": 2.0, "arguments": "{}", "error": "backend unavailable"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&buf, nil)) // Info and above
			got := run(middleware.Log(logger, tt.opts), fixed(tt.res, nil), tool.Call{ID: "call_1", Name: "t", Arguments: tt.args})
			if got.Content != tt.res.Content || got.Kind != tt.res.Kind {
				t.Errorf("result changed: %+v", got)
			}
			if diff := cmp.Diff(tt.want, records(t, &buf)); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLogNil(t *testing.T) {
	n := 0
	got := run(middleware.Log(nil, nil), fixed(tool.Text("ok"), &n), tool.Call{})
	if got.Content != "ok" || n != 1 {
		t.Errorf("nil logger: %q after %d calls", got.Content, n)
	}
}

// TestLogOneRecordPerCall, through a real tool with a timeout failure below.
func TestLogOneRecordPerCall(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	var rec recorder
	tr := transferTool(&rec)
	h := tool.Chain(middleware.Log(logger, &middleware.LogOptions{Redact: []string{"account"}}), middleware.WrapErrors(nil))(tr.Handle)
	h(context.Background(), call(tr, `{"account":"12345678","amount":1,"currency":"CNY"}`))
	h(context.Background(), call(tr, `{"account":"12345678","amount":1}`))
	rs := records(t, &buf)
	if len(rs) != 2 {
		t.Fatalf("%d records, want 2", len(rs))
	}
	if rs[0]["kind"] != "" || rs[1]["kind"] != "invalid_arguments" || strings.Contains(buf.String(), "12345678") {
		t.Errorf("records: %v", rs)
	}
}
