package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestWrapErrors(t *testing.T) {
	tests := []struct {
		name string
		opts *middleware.WrapErrorsOptions
		in   tool.Result
		want string
	}{
		{"success untouched", nil, tool.Text("ok"), "ok"},
		{"invalid arguments", nil, tool.Result{Kind: tool.KindInvalidArguments, Content: "invalid arguments for tool t:\n- /city: required", Err: errBackend},
			"error: invalid_arguments\ntool: t\nmessage: invalid arguments for tool t:\n- /city: required\nnext step: fix the arguments and call again."},
		{"invalid json", nil, tool.Failure(tool.KindInvalidJSON, errors.New("not JSON")),
			"error: invalid_json\ntool: t\nmessage: not JSON\nnext step: fix the arguments and call again."},
		{"timeout", nil, tool.Failure(tool.KindTimeout, errors.New("too slow")),
			"error: timeout\ntool: t\nmessage: too slow\nnext step: this tool is unavailable right now: try another way or tell the user."},
		{"tool error", nil, tool.Failure(tool.KindToolError, errBackend),
			"error: tool_error\ntool: t\nmessage: backend unavailable\nnext step: this tool is unavailable for this request: do not repeat the same call; try another way or tell the user."},
		{"unknown kind gets the fallback", nil, tool.Failure("quota", errors.New("over quota")),
			"error: quota\ntool: t\nmessage: over quota\nnext step: try another way or tell the user."},
		{"empty content uses Err", nil, tool.Result{Kind: tool.KindDenied, Err: errors.New("no")},
			"error: denied\ntool: t\nmessage: no\nnext step: " + middleware.DefaultGuidance(tool.KindDenied)},
		{"custom guidance", &middleware.WrapErrorsOptions{Guidance: map[tool.Kind]string{tool.KindTimeout: "wait a minute, then call again."}},
			tool.Failure(tool.KindTimeout, errors.New("too slow")),
			"error: timeout\ntool: t\nmessage: too slow\nnext step: wait a minute, then call again."},
		{"guidance dropped", &middleware.WrapErrorsOptions{Guidance: map[tool.Kind]string{tool.KindTimeout: ""}},
			tool.Failure(tool.KindTimeout, errors.New("too slow")),
			"error: timeout\ntool: t\nmessage: too slow"},
		{"custom guidance leaves other kinds", &middleware.WrapErrorsOptions{Guidance: map[tool.Kind]string{tool.KindTimeout: "x"}},
			tool.Failure(tool.KindInvalidJSON, errors.New("bad")),
			"error: invalid_json\ntool: t\nmessage: bad\nnext step: fix the arguments and call again."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(middleware.WrapErrors(tt.opts), fixed(tt.in, nil), tool.Call{Name: "t"})
			if got.Content != tt.want {
				t.Errorf("content\n got %q\nwant %q", got.Content, tt.want)
			}
			if got.Kind != tt.in.Kind || got.Err != tt.in.Err || got.Original != "" {
				t.Errorf("kind %q err %v original %q changed", got.Kind, got.Err, got.Original)
			}
		})
	}
}

// TestWrapErrorsOptionsCopied: changing the map after construction has no effect.
func TestWrapErrorsOptionsCopied(t *testing.T) {
	g := map[tool.Kind]string{tool.KindTimeout: "before"}
	mw := middleware.WrapErrors(&middleware.WrapErrorsOptions{Guidance: g})
	g[tool.KindTimeout] = "after"
	got := run(mw, fixed(tool.Failure(tool.KindTimeout, errors.New("x")), nil), tool.Call{Name: "t"})
	if want := "error: timeout\ntool: t\nmessage: x\nnext step: before"; got.Content != want {
		t.Errorf("got %q, want %q", got.Content, want)
	}
}

func ExampleWrapErrors() {
	weather := tool.New("get_weather", "查询城市天气。", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "", errors.New("weather service returned 503")
	})
	h := middleware.WrapErrors(nil)(weather.Handle)

	res := h(context.Background(), tool.Call{ID: "call_1", Name: "get_weather", Arguments: `{"town":"北京"}`, Tool: weather})
	fmt.Println(res.Content)
	fmt.Println()
	res = h(context.Background(), tool.Call{ID: "call_2", Name: "get_weather", Arguments: `{"city":"北京"}`, Tool: weather})
	fmt.Println(res.Content)
	// Output:
	// error: invalid_arguments
	// tool: get_weather
	// message: invalid arguments for tool get_weather:
	// - /city: required property is missing (string)
	// - /town: unknown property; known properties: city
	// Fix these arguments and call the tool again.
	// next step: fix the arguments and call again.
	//
	// error: tool_error
	// tool: get_weather
	// message: tool get_weather failed: weather service returned 503
	// next step: this tool is unavailable for this request: do not repeat the same call; try another way or tell the user.
}
