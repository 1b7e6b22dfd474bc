package middleware_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestAllowDeny(t *testing.T) {
	search := tool.New("search", "Search.", func(ctx context.Context, in struct{}) (string, error) { return "results", nil })
	del := tool.New("delete_user", "Delete a user.", func(ctx context.Context, in struct{}) (string, error) { return "deleted", nil })
	unknown := tool.Call{Name: "nope", Arguments: "{}"}
	tests := []struct {
		name     string
		mw       tool.Middleware
		call     tool.Call
		wantKind tool.Kind
		wantText string
	}{
		{"allowed", middleware.Allow("search"), call(search, "{}"), "", "results"},
		{"not allowed", middleware.Allow("search", "get_weather"), call(del, "{}"), tool.KindDenied, "the allowed tools are get_weather, search"},
		{"empty allowlist", middleware.Allow(), call(search, "{}"), tool.KindDenied, "not allowed here"},
		{"unknown tool passes Allow", middleware.Allow("search"), unknown, tool.KindUnknownTool, "unknown"},
		{"denied", middleware.Deny("delete_user"), call(del, "{}"), tool.KindDenied, "not permitted"},
		{"not denied", middleware.Deny("delete_user"), call(search, "{}"), "", "results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(tt.mw, dispatch, tt.call)
			if got.Kind != tt.wantKind || !strings.Contains(got.Content, tt.wantText) {
				t.Errorf("got %q %q, want %q containing %q", got.Kind, got.Content, tt.wantKind, tt.wantText)
			}
		})
	}
}

func TestAllowFromContext(t *testing.T) {
	search := tool.New("search", "Search.", func(ctx context.Context, in struct{}) (string, error) { return "results", nil })
	del := tool.New("delete_user", "Delete a user.", func(ctx context.Context, in struct{}) (string, error) { return "deleted", nil })
	bg := context.Background()
	user := middleware.WithAllowedTools(bg, "search", "get_weather", "search")
	admin := middleware.WithAllowedTools(bg, "search", "delete_user")
	narrowed := middleware.WithAllowedTools(admin, "delete_user", "get_weather") // only delete_user survives
	tests := []struct {
		name     string
		ctx      context.Context
		call     tool.Call
		wantKind tool.Kind
		wantText string
	}{
		{"no list restricts nothing", bg, call(del, "{}"), "", "deleted"},
		{"user may search", user, call(search, "{}"), "", "results"},
		{"user may not delete", user, call(del, "{}"), tool.KindDenied, "not available to this user; the tools available are get_weather, search"},
		{"admin may delete", admin, call(del, "{}"), "", "deleted"},
		{"narrowed: no widening", narrowed, call(search, "{}"), tool.KindDenied, "the tools available are delete_user."},
		{"narrowed keeps the intersection", narrowed, call(del, "{}"), "", "deleted"},
		{"empty list allows nothing", middleware.WithAllowedTools(bg), call(search, "{}"), tool.KindDenied, "not available"},
		{"unknown tool passes", user, tool.Call{Name: "nope"}, tool.KindUnknownTool, "unknown"},
	}
	h := middleware.AllowFromContext()(dispatch)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := h(tt.ctx, tt.call)
			if got.Kind != tt.wantKind || !strings.Contains(got.Content, tt.wantText) {
				t.Errorf("got %q %q, want %q containing %q", got.Kind, got.Content, tt.wantKind, tt.wantText)
			}
		})
	}
	names, ok := middleware.AllowedTools(user)
	if diff := cmp.Diff([]string{"get_weather", "search"}, names); !ok || diff != "" {
		t.Errorf("AllowedTools (-want +got):\n%s", diff)
	}
	if _, ok := middleware.AllowedTools(bg); ok {
		t.Error("AllowedTools reports a list on a bare context")
	}
}
