package tool_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/tool"
)

func ptr[T any](v T) *T { return &v }

// TestAnnotationsDefaults: the hints read as MCP's do, defaults included.
func TestAnnotationsDefaults(t *testing.T) {
	type got struct{ Destructive, Idempotent, OpenWorld bool }
	tests := []struct {
		name string
		a    tool.Annotations
		want got
	}{
		{"nothing said", tool.Annotations{}, got{true, false, true}},
		{"read-only", tool.Annotations{ReadOnly: true}, got{false, true, true}},
		{"read-only wins over destructive", tool.Annotations{ReadOnly: true, Destructive: ptr(true)}, got{false, true, true}},
		{"additive", tool.Annotations{Destructive: ptr(false)}, got{false, false, true}},
		{"idempotent", tool.Annotations{Idempotent: true}, got{true, true, true}},
		{"closed world", tool.Annotations{OpenWorld: ptr(false)}, got{true, false, false}},
	}
	for _, tc := range tests {
		g := got{tc.a.IsDestructive(), tc.a.IsIdempotent(), tc.a.IsOpenWorld()}
		if diff := cmp.Diff(tc.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestAnnotationsAreTheToolsOwn: a Tool is immutable — changing the Options it was built from,
// or the Annotations it returned, changes nothing in it.
func TestAnnotationsAreTheToolsOwn(t *testing.T) {
	destructive := false
	opts := tool.Options{Annotations: tool.Annotations{Title: "Echo", Destructive: &destructive}}
	tl := tool.New("echo", "echoes", func(_ context.Context, in struct{}) (string, error) { return "", nil }, opts)
	destructive = true
	a := tl.Annotations()
	*a.Destructive = true
	a.Title = "changed"
	if got := tl.Annotations(); got.Title != "Echo" || got.Destructive == nil || *got.Destructive || got.IsDestructive() {
		t.Errorf("Annotations() = %+v after the caller's changes, want Title Echo, Destructive false", got)
	}
}
