package middleware_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestCheck(t *testing.T) {
	var rec recorder
	transfer := transferTool(&rec)
	other := tool.New("other", "Other.", func(ctx context.Context, in struct {
		Amount float64 `json:"amount"`
	}) (string, error) {
		return "other ran", nil
	})
	noMemoX := middleware.RuleFunc(func(ctx context.Context, c tool.Call, args json.RawMessage) error {
		if strings.Contains(string(args), "XX") {
			return errors.New("the memo must not contain XX")
		}
		return nil
	})
	mw := middleware.Check("transfer",
		middleware.OneOf("currency", "CNY", "USD"),
		middleware.Range("amount", 0.01, 1000),
		middleware.Pattern("account", `^[0-9]{8,20}$`),
		middleware.Pattern("memo.note", `^[^<>]*$`),
		noMemoX,
		middleware.Rule{}, // the zero Rule accepts
	)
	tests := []struct {
		name     string
		call     tool.Call
		wantKind tool.Kind
		wantText string
	}{
		{"ok", call(transfer, `{"account":"12345678","amount":10,"currency":"CNY"}`), "", "done"},
		{"repaired args checked", call(transfer, "```json\n{\"account\":\"12345678\",\"amount\":10,\"currency\":\"USD\",}\n```"), "", "done"},
		{"value not allowed", call(transfer, `{"account":"12345678","amount":10,"currency":"EUR"}`), tool.KindDenied, `currency must be one of "CNY", "USD"; got "EUR"`},
		{"over range", call(transfer, `{"account":"12345678","amount":5000,"currency":"CNY"}`), tool.KindDenied, "amount must be from 0.01 to 1000; got 5000"},
		{"under range", call(transfer, `{"account":"12345678","amount":0,"currency":"CNY"}`), tool.KindDenied, "amount must be from 0.01 to 1000; got 0"},
		{"the bounds as written", call(transfer, `{"account":"12345678","amount":0.01,"currency":"CNY"}`), "", "done"},
		{"over range by less than a float64 tells", call(transfer, `{"account":"12345678","amount":1000.0000000000000001,"currency":"CNY"}`), tool.KindDenied, "amount must be from 0.01 to 1000; got 1000.0000000000000001"},
		{"pattern", call(transfer, `{"account":"12ab","amount":1,"currency":"CNY"}`), tool.KindDenied, `account must match the pattern ^[0-9]{8,20}$; got "12ab"`},
		{"nested pattern", call(transfer, `{"account":"12345678","amount":1,"currency":"CNY","memo":{"note":"<script>"}}`), tool.KindDenied, "memo.note must match"},
		{"absent optional field passes", call(transfer, `{"account":"12345678","amount":1,"currency":"CNY"}`), "", "done"},
		{"custom rule", call(transfer, `{"account":"12345678","amount":1,"currency":"CNY","memo":{"note":"XX"}}`), tool.KindDenied, "the memo must not contain XX"},
		{"schema first: rules not run", call(transfer, `{"account":"12345678","amount":"lots","currency":"CNY"}`), tool.KindInvalidArguments, "/amount"},
		{"invalid JSON", call(transfer, `{"account":`), tool.KindInvalidJSON, "not valid JSON"},
		{"10 MB of [ refused by the tool", call(transfer, strings.Repeat("[", 10<<20)), tool.KindInvalidJSON, "over the 65536-byte limit"},
		{"other tool not checked", call(other, `{"amount":5000}`), "", "other ran"},
		{"unknown tool passes", tool.Call{Name: "transfer"}, tool.KindUnknownTool, "unknown"},
	}
	h := mw(dispatch)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := rec.n()
			got := h(context.Background(), tt.call)
			if got.Kind != tt.wantKind || !strings.Contains(got.Content, tt.wantText) {
				t.Errorf("got %q %q, want %q containing %q", got.Kind, got.Content, tt.wantKind, tt.wantText)
			}
			if ran := rec.n() > before; ran != (got.Kind == "" && tt.call.Name == "transfer") {
				t.Errorf("tool ran: %v", ran)
			}
		})
	}
}

func TestCheckAllTools(t *testing.T) {
	a := tool.New("a", "A.", func(ctx context.Context, in struct {
		N float64 `json:"n"`
	}) (string, error) {
		return "a ran", nil
	})
	h := middleware.Check("", middleware.Range("n", math.Inf(-1), 10), middleware.OneOf("n", 1, 2.0, 20))(dispatch)
	for _, tc := range []struct {
		args, want string
	}{{`{"n":1.0}`, "a ran"}, {`{"n":2}`, "a ran"}, {`{"n":3}`, "must be one of 1, 2, 20"}, {`{"n":20}`, "must be from -Inf to 10"}} {
		if got := h(context.Background(), call(a, tc.args)); !strings.Contains(got.Content, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.args, got.Content, tc.want)
		}
	}
}

func TestCheckPanicsOnBadPattern(t *testing.T) {
	mustPanic(t, "Pattern", func() { middleware.Pattern("x", "(") })
	mustPanic(t, "OneOf", func() { middleware.OneOf("x", func() {}) })
}

// TestCheckShowsValidatedArguments: a rule sees exactly the arguments Tool.Arguments returns
// for a repaired call, as its args and as call.Arguments.
func TestCheckShowsValidatedArguments(t *testing.T) {
	var rec recorder
	tr := transferTool(&rec)
	want, _, err := tr.Arguments(repairedTransfer)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	rule := middleware.RuleFunc(func(_ context.Context, c tool.Call, args json.RawMessage) error {
		got = append(got, string(args), c.Arguments)
		return nil
	})
	res := middleware.Check("transfer", rule, middleware.Range("amount", 0, 100))(tr.Handle)(context.Background(), call(tr, repairedTransfer))
	if res.Failed() {
		t.Fatalf("refused: %q", res.Content)
	}
	if diff := cmp.Diff([]string{string(want), string(want)}, got); diff != "" {
		t.Errorf("the rule saw (-want +got):\n%s", diff)
	}
	if res.Repair == "" {
		t.Error("the tool's result lost its repair note")
	}
}
