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

// loginTool is a tool whose arguments have fields to redact at several depths, all optional.
func loginTool() *tool.Tool {
	type token struct {
		V int `json:"v"`
	}
	type auth struct {
		Token *token `json:"token,omitempty"`
		Scope string `json:"scope,omitempty"`
	}
	type entry struct {
		Password string `json:"password"`
	}
	return tool.New("login", "Log in.", func(ctx context.Context, in struct {
		User     string  `json:"user,omitempty"`
		Password string  `json:"Password,omitempty"`
		Auth     *auth   `json:"auth,omitempty"`
		List     []entry `json:"list,omitempty"`
		Note     string  `json:"note,omitempty"`
		City     string  `json:"city,omitempty"`
	}) (string, error) {
		return "ok", nil
	})
}

func TestLog(t *testing.T) {
	redact := &middleware.LogOptions{Redact: []string{"password", "Token"}}
	huge := strings.Repeat("[", 10<<20) // over the tool's limit: refused, never parsed
	hugeCut := strings.Repeat("[", 1000) + "\n…[truncated: 10485760 characters in all; 10483760 from the middle omitted]…\n" + strings.Repeat("[", 1000)
	login := loginTool()
	tests := []struct {
		name string
		opts *middleware.LogOptions
		tool *tool.Tool // nil: the model named no tool
		args string
		res  tool.Result
		want []map[string]any
	}{
		{"success, without kind", nil, login, `{"city":"北京"}`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false,
			"args_bytes": 17.0, "arguments": `{"city":"北京"}`}}},
		{"failure at warn with error and repair", nil, nil, "{'a':1}", tool.Result{Kind: tool.KindToolError, Err: errBackend, Content: "x", Repair: "fixed quotes"}, []map[string]any{{
			"level": "WARN", "msg": "tool call", "tool": "t", "call_id": "call_1", "kind": "tool_error", "truncated": false,
			"args_bytes": 7.0, "arguments": "{'a':1}", "repair": "fixed quotes", "error": "backend unavailable"}}},
		{"truncated flag", nil, login, `{}`, tool.Result{Content: "short", Original: "long original"}, []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": true,
			"args_bytes": 2.0, "arguments": "{}"}}},
		{"redacted at any depth, any case, order kept", redact, login,
			`{"user":"li","Password":"hunter2","auth":{"token":{"v":1},"scope":"r"},"list":[{"password":"p"}],"note":"password"}`,
			tool.Text("ok"), []map[string]any{{
				"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": 115.0,
				"arguments": `{"user":"li","Password":"[redacted]","auth":{"token":"[redacted]","scope":"r"},"list":[{"password":"[redacted]"}],"note":"password"}`}}},
		{"repairable arguments redacted after repair", redact, login, "```json\n{\"Password\":\"x\",}\n```", tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": 29.0,
			"arguments": `{"Password":"[redacted]"}`}}},
		{"nothing to redact", redact, login, `{"user":"li"}`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": 13.0,
			"arguments": `{"user":"li"}`}}},
		{"unknown tool hidden when redacting", redact, nil, `password=hunter2`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "truncated": false, "args_bytes": 16.0,
			"arguments": "[not shown]"}}},
		{"refused arguments hidden when redacting", redact, login, `{"Password":1}`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": 14.0,
			"arguments": "[not shown]"}}},
		{"refused arguments shown as sent when nothing is redacted", nil, login, `{"Password":1}`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": 14.0,
			"arguments": `{"Password":1}`}}},
		{"arguments omitted", &middleware.LogOptions{OmitArguments: true}, login, `{"user":"li"}`, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": 13.0}}},
		{"success below the handler's level", &middleware.LogOptions{Level: slog.LevelDebug}, login, `{}`, tool.Text("ok"), nil},
		{"failure raised to warn", &middleware.LogOptions{Level: slog.LevelDebug}, login, `{}`, tool.Failure(tool.KindDenied, errBackend), []map[string]any{{
			"level": "WARN", "msg": "tool call", "tool": "login", "call_id": "call_1", "kind": "denied", "truncated": false,
			"args_bytes": 2.0, "arguments": "{}", "error": "backend unavailable"}}},
		{"10 MB of [ refused by the tool, hidden when redacting", redact, login, huge, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": float64(len(huge)),
			"arguments": "[not shown]"}}},
		{"10 MB of [ to an unknown tool, hidden when redacting", redact, nil, huge, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "t", "call_id": "call_1", "truncated": false, "args_bytes": float64(len(huge)),
			"arguments": "[not shown]"}}},
		{"10 MB of [ shown cut when nothing is redacted", nil, login, huge, tool.Text("ok"), []map[string]any{{
			"level": "INFO", "msg": "tool call", "tool": "login", "call_id": "call_1", "truncated": false, "args_bytes": float64(len(huge)),
			"arguments": hugeCut}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&buf, nil)) // Info and above
			c := tool.Call{ID: "call_1", Name: "t", Arguments: tt.args}
			if tt.tool != nil {
				c = call(tt.tool, tt.args)
			}
			got := run(middleware.Log(logger, tt.opts), fixed(tt.res, nil), c)
			if got.Content != tt.res.Content || got.Kind != tt.res.Kind {
				t.Errorf("result changed: %+v", got)
			}
			if diff := cmp.Diff(tt.want, records(t, &buf)); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLogShowsValidatedArguments: the arguments logged are exactly those Tool.Arguments
// returns for a repaired call, with or without redaction of an absent field.
func TestLogShowsValidatedArguments(t *testing.T) {
	var rec recorder
	tr := transferTool(&rec)
	want, _, err := tr.Arguments(repairedTransfer)
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []*middleware.LogOptions{nil, {Redact: []string{"password"}}} {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, nil))
		run(middleware.Log(logger, opts), tr.Handle, call(tr, repairedTransfer))
		rs := records(t, &buf)
		if len(rs) != 1 {
			t.Fatalf("%d records, want 1", len(rs))
		}
		if got := rs[0]["arguments"]; got != string(want) {
			t.Errorf("opts %+v: arguments %q, want %q (Tool.Arguments)", opts, got, want)
		}
	}
}

func TestLogNil(t *testing.T) {
	n := 0
	got := run(middleware.Log(nil, nil), fixed(tool.Text("ok"), &n), tool.Call{})
	if got.Content != "ok" || n != 1 {
		t.Errorf("nil logger: %q after %d calls", got.Content, n)
	}
}

// TestLogOneRecordPerCall, through a real tool with a failure below.
func TestLogOneRecordPerCall(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	var rec recorder
	tr := transferTool(&rec)
	h := tool.Chain(middleware.Log(logger, &middleware.LogOptions{Redact: []string{"account"}}), middleware.WrapErrors(nil))(tr.Handle)
	h(context.Background(), call(tr, `{"account":"12345678","amount":1,"currency":"CNY"}`))
	h(context.Background(), call(tr, `{"account":"12345678","amount":1}`))
	rs := records(t, &buf)
	var got []any
	for _, r := range rs {
		got = append(got, r["kind"])
	}
	if diff := cmp.Diff([]any{nil, "invalid_arguments"}, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if strings.Contains(buf.String(), "12345678") {
		t.Errorf("account not redacted: %s", buf.String())
	}
}
