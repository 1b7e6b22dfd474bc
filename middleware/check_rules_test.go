package middleware

import (
	"context"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tool"
)

// TestCheckRulesDepth: field rules refuse arguments nested deeper than the bound instead of
// decoding them (a tool without a nesting bound of its own could pass such arguments on).
func TestCheckRulesDepth(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		wantErr string // "" for none
	}{
		{"within the bound", `{"a":` + strings.Repeat("[", 62) + strings.Repeat("]", 62) + `,"n":5}`, "n must be from 0 to 1; got 5"},
		{"past the bound", `{"a":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `,"n":5}`, "the arguments nest deeper than 64 levels, too deep to check"},
		{"10 MB of [", `{"a":` + strings.Repeat("[", 10<<20) + `}`, "the arguments nest deeper than 64 levels, too deep to check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkRules(context.Background(), tool.Call{}, []byte(tt.args), []Rule{Range("n", 0, 1)})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("got %q, want %q", got, tt.wantErr)
			}
		})
	}
}
