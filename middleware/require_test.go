package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// RequireApproval pauses the calls its predicate accepts, after validation, with their
// canonical arguments; an approved call, another tool's, an invalid one and an unknown
// tool's do not pause.
func TestRequireApproval(t *testing.T) {
	search := tool.New("search", "Search.", func(ctx context.Context, in struct{}) (string, error) { return "results", nil },
		tool.Options{Annotations: tool.Annotations{ReadOnly: true}})
	valid := `{"account":"12345678","amount":10,"currency":"CNY"}`
	tests := []struct {
		name     string
		pred     func(tool.Call) bool
		call     func(transfer *tool.Tool) tool.Call
		approved []string
		wantKind tool.Kind
		wantArgs string // the pending result's canonical arguments
		wantRan  int
	}{
		{name: "destructive pauses", pred: middleware.Destructive, call: func(tr *tool.Tool) tool.Call { return call(tr, valid) },
			wantKind: tool.KindPending, wantArgs: valid},
		{name: "repaired then paused", pred: middleware.Destructive, call: func(tr *tool.Tool) tool.Call { return call(tr, repairedTransfer) },
			wantKind: tool.KindPending, wantArgs: valid},
		{name: "approved runs", pred: middleware.Destructive, call: func(tr *tool.Tool) tool.Call { return call(tr, valid) },
			approved: []string{"call_1"}, wantRan: 1},
		{name: "another call's approval does not count", pred: middleware.Destructive, call: func(tr *tool.Tool) tool.Call { return call(tr, valid) },
			approved: []string{"call_2"}, wantKind: tool.KindPending, wantArgs: valid},
		{name: "read-only passes", pred: middleware.Destructive, call: func(*tool.Tool) tool.Call { return call(search, "{}") }},
		{name: "invalid never pauses", pred: func(tool.Call) bool { return true },
			call:     func(tr *tool.Tool) tool.Call { return call(tr, `{"account":"1","amount":10,"currency":"GBP"}`) },
			wantKind: tool.KindInvalidArguments},
		{name: "unknown tool passes", pred: func(tool.Call) bool { return true },
			call: func(*tool.Tool) tool.Call { return tool.Call{ID: "call_1", Name: "nope"} }, wantKind: tool.KindUnknownTool},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec recorder
			transfer := transferTool(&rec)
			h := func(ctx context.Context, c tool.Call) tool.Result {
				if c.Tool == nil {
					return tool.Failure(tool.KindUnknownTool, errors.New("unknown"))
				}
				return c.Tool.Handle(ctx, c)
			}
			ctx := tool.WithApproved(context.Background(), tt.approved...)
			res := middleware.RequireApproval(tt.pred)(h)(ctx, tt.call(transfer))
			if res.Kind != tt.wantKind {
				t.Fatalf("Kind = %q (%s), want %q", res.Kind, res.Content, tt.wantKind)
			}
			if tt.wantKind == tool.KindPending {
				if !errors.Is(res.Err, tool.ErrApprovalRequired) {
					t.Errorf("Err = %v, want ErrApprovalRequired", res.Err)
				}
				got, _ := res.Value.(json.RawMessage)
				if diff := cmp.Diff(tt.wantArgs, string(got)); diff != "" {
					t.Errorf("arguments (-want +got):\n%s", diff)
				}
			}
			if got := rec.n(); got != tt.wantRan {
				t.Errorf("transfer ran %d times, want %d", got, tt.wantRan)
			}
		})
	}
	mustPanic(t, "RequireApproval(nil)", func() { middleware.RequireApproval(nil) })
}

// A deferred tool's call passes through RequireApproval to the tool, which defers it: the
// application's result is its decision.
func TestRequireApprovalPassesDeferred(t *testing.T) {
	page := tool.Deferred[struct {
		URL string `json:"url"`
	}]("open_page", "Open a page in the user's browser.")
	h := func(ctx context.Context, c tool.Call) tool.Result { return c.Tool.Handle(ctx, c) }
	res := middleware.RequireApproval(func(tool.Call) bool { return true })(h)(context.Background(),
		tool.Call{ID: "call_1", Name: "open_page", Arguments: `{"url":"https://example.com"}`, Tool: page})
	if res.Kind != tool.KindPending || !errors.Is(res.Err, tool.ErrDeferred) {
		t.Errorf("Kind %q, Err %v; want pending, ErrDeferred", res.Kind, res.Err)
	}
}
