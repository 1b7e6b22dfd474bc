package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/tool"
)

type transferIn struct {
	To     string  `json:"to"`
	Amount float64 `json:"amount" jsonschema:"minimum=0.01"`
}

// A tool with RequireApproval and a Deferred tool validate their arguments and return a
// pending result carrying the canonical arguments; an approved call of the first runs, a
// deferred call never does; an invalid call gets its invalid-arguments result, never a
// pause.
func TestHandlePending(t *testing.T) {
	ran := 0
	transfer := tool.New("transfer", "转账。", func(ctx context.Context, in transferIn) (string, error) {
		ran++
		return "done", nil
	}, tool.Options{RequireApproval: true})
	browser := tool.Deferred[transferIn]("browser_transfer", "在浏览器里转账。")
	tests := []struct {
		name     string
		tool     *tool.Tool
		args     string
		approved []string
		want     tool.Kind
		reason   error
		wantArgs string
		wantRan  int
	}{
		{"approval needed", transfer, `{ "to":"bob", "amount":500 }`, nil, tool.KindPending, tool.ErrApprovalRequired, `{"to":"bob","amount":500}`, 0},
		{"another call approved", transfer, `{"to":"bob","amount":500}`, []string{"c2"}, tool.KindPending, tool.ErrApprovalRequired, `{"to":"bob","amount":500}`, 0},
		{"approved", transfer, `{"to":"bob","amount":500}`, []string{"c1"}, "", nil, "", 1},
		{"invalid never pauses", transfer, `{"to":"bob","amount":0}`, nil, tool.KindInvalidArguments, nil, "", 0},
		{"deferred", browser, `{"to":"bob","amount":5}`, nil, tool.KindPending, tool.ErrDeferred, `{"to":"bob","amount":5}`, 0},
		{"deferred even approved", browser, `{"to":"bob","amount":5}`, []string{"c1"}, tool.KindPending, tool.ErrDeferred, `{"to":"bob","amount":5}`, 0},
		{"deferred invalid", browser, `{"to":"bob"}`, nil, tool.KindInvalidArguments, nil, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran = 0
			ctx := tool.WithApproved(context.Background(), tt.approved...)
			res := tt.tool.Handle(ctx, tool.Call{ID: "c1", Name: tt.tool.Name(), Arguments: tt.args})
			if res.Kind != tt.want {
				t.Fatalf("Kind = %q (%s), want %q", res.Kind, res.Content, tt.want)
			}
			if tt.reason != nil && !errors.Is(res.Err, tt.reason) {
				t.Errorf("Err = %v, want it to wrap %v", res.Err, tt.reason)
			}
			if tt.wantArgs != "" {
				got, _ := res.Value.(json.RawMessage)
				if diff := cmp.Diff(tt.wantArgs, string(got)); diff != "" {
					t.Errorf("pending arguments (-want +got):\n%s", diff)
				}
			}
			if ran != tt.wantRan {
				t.Errorf("the function ran %d times, want %d", ran, tt.wantRan)
			}
		})
	}
	if !transfer.RequiresApproval() || transfer.IsDeferred() || !browser.IsDeferred() {
		t.Errorf("RequiresApproval, IsDeferred = %v %v %v; want true false true", transfer.RequiresApproval(), transfer.IsDeferred(), browser.IsDeferred())
	}
}

func TestApproved(t *testing.T) {
	ctx := tool.WithApproved(context.Background(), "a", "b")
	for id, want := range map[string]bool{"a": true, "b": true, "c": false, "": false} {
		if got := tool.Approved(ctx, id); got != want {
			t.Errorf("Approved(%q) = %v, want %v", id, got, want)
		}
	}
	if tool.Approved(tool.WithApproved(ctx), "a") {
		t.Error("WithApproved(ctx) with no ids still approves a: it must replace what ctx carried")
	}
	if tool.Approved(context.Background(), "a") {
		t.Error("a bare context approves a call")
	}
}
