package middleware_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestApprove(t *testing.T) {
	errUI := errors.New("approval UI unreachable")
	search := tool.New("search", "Search.", func(ctx context.Context, in struct{}) (string, error) { return "results", nil })
	tests := []struct {
		name      string
		answer    bool
		answerErr error
		cancel    bool
		opts      *middleware.ApproveOptions
		call      func(*tool.Tool) tool.Call
		wantAsked bool
		wantRan   bool
		wantKind  tool.Kind
		wantText  string
		wantErrIs error
		wantShown string
	}{
		{name: "approved", answer: true, wantAsked: true, wantRan: true, wantText: "done",
			wantShown: `{"account":"12345678","amount":10,"currency":"CNY"}`},
		{name: "declined", answer: false, wantAsked: true, wantKind: tool.KindDenied, wantText: "the user declined this call to transfer; it did not run. Do not retry it"},
		{name: "approver error fails closed", answerErr: errUI, wantAsked: true, wantKind: tool.KindDenied, wantText: "approval could not be obtained", wantErrIs: errUI},
		{name: "approver error with true still fails closed", answer: true, answerErr: errUI, wantAsked: true, wantKind: tool.KindDenied, wantErrIs: errUI},
		{name: "canceled while waiting", answerErr: context.Canceled, cancel: true, wantAsked: true, wantKind: tool.KindCanceled, wantText: "waiting for approval", wantErrIs: context.Canceled},
		{name: "invalid args never reach the approver", answer: true, wantKind: tool.KindInvalidArguments, wantText: "/currency",
			call: func(tr *tool.Tool) tool.Call { return call(tr, `{"account":"12345678","amount":10,"currency":"GBP"}`) }},
		{name: "repaired args shown validated", answer: true, wantAsked: true, wantRan: true, wantText: "done",
			call: func(tr *tool.Tool) tool.Call {
				return call(tr, "```json\n{'account':'12345678','amount':10,'currency':'CNY',}\n```")
			},
			wantShown: `{"account":"12345678","amount":10,"currency":"CNY"}`},
		{name: "other tools not asked", answer: false, opts: &middleware.ApproveOptions{Tools: []string{"transfer"}}, wantRan: false, wantText: "results",
			call: func(*tool.Tool) tool.Call { return call(search, "{}") }},
		{name: "listed tool asked", answer: false, opts: &middleware.ApproveOptions{Tools: []string{"transfer"}}, wantAsked: true, wantKind: tool.KindDenied},
		{name: "unknown tool not asked", answer: true, wantKind: tool.KindUnknownTool,
			call: func(*tool.Tool) tool.Call { return tool.Call{Name: "transfer_all"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec recorder
			transfer := transferTool(&rec)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			asked := false
			var shown string
			approver := func(ctx context.Context, c tool.Call) (bool, error) {
				asked, shown = true, c.Arguments
				if tt.cancel {
					cancel()
				}
				return tt.answer, tt.answerErr
			}
			c := call(transfer, `{"account":"12345678","amount":10,"currency":"CNY"}`)
			if tt.call != nil {
				c = tt.call(transfer)
			}
			got := middleware.Approve(approver, tt.opts)(dispatch)(ctx, c)
			if asked != tt.wantAsked || (rec.n() > 0) != tt.wantRan {
				t.Errorf("asked %v ran %v, want %v %v", asked, rec.n() > 0, tt.wantAsked, tt.wantRan)
			}
			if got.Kind != tt.wantKind || !strings.Contains(got.Content, tt.wantText) {
				t.Errorf("got %q %q, want %q containing %q", got.Kind, got.Content, tt.wantKind, tt.wantText)
			}
			if tt.wantErrIs != nil && !errors.Is(got.Err, tt.wantErrIs) {
				t.Errorf("err %v does not wrap %v", got.Err, tt.wantErrIs)
			}
			if strings.Contains(got.Content, errUI.Error()) {
				t.Errorf("the approver's error leaked to the model: %q", got.Content)
			}
			if tt.wantShown != "" && shown != tt.wantShown {
				t.Errorf("approver saw %s, want %s", shown, tt.wantShown)
			}
		})
	}
}

func TestApprovePanicsOnNil(t *testing.T) {
	mustPanic(t, "Approve(nil)", func() { middleware.Approve(nil, nil) })
}

// TestApproveShowsValidatedArguments: the approver sees exactly the arguments Tool.Arguments
// returns for a repaired call, and the call it approves runs with its repair noted.
func TestApproveShowsValidatedArguments(t *testing.T) {
	var rec recorder
	tr := transferTool(&rec)
	want, _, err := tr.Arguments(repairedTransfer)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	approver := func(_ context.Context, c tool.Call) (bool, error) {
		got = append(got, c.Arguments)
		return true, nil
	}
	res := middleware.Approve(approver, nil)(tr.Handle)(context.Background(), call(tr, repairedTransfer))
	if res.Failed() || res.Repair == "" {
		t.Fatalf("got %q %q, repair %q: want a success with its repair noted", res.Kind, res.Content, res.Repair)
	}
	if diff := cmp.Diff([]string{string(want)}, got); diff != "" {
		t.Errorf("the approver saw (-want +got):\n%s", diff)
	}
}
