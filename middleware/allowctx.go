package middleware

import (
	"context"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/tool"
)

type allowedKey struct{}

// allowed is the per-run allowlist: the sorted names.
type allowed []string

// WithAllowedTools returns a context that restricts the run it is passed to to the named
// tools, for [AllowFromContext] to enforce: the per-run policy, decided by the caller (from
// the user's role, their plan, the channel…) while the Agent and its middleware are shared:
//
//	names := []string{"search", "get_weather"}
//	if user.IsAdmin() {
//		names = append(names, "delete_user")
//	}
//	res, err := agent.Run(middleware.WithAllowedTools(ctx, names...), input)
//
// Calling it on a context that already has a list keeps only the tools in both: a nested
// scope can narrow the list, never widen it. No names allows no tools.
func WithAllowedTools(ctx context.Context, names ...string) context.Context {
	list := slices.Clone(names)
	slices.Sort(list)
	list = slices.Compact(list)
	if prev, ok := ctx.Value(allowedKey{}).(allowed); ok {
		list = slices.DeleteFunc(list, func(n string) bool {
			_, found := slices.BinarySearch(prev, n)
			return !found
		})
	}
	return context.WithValue(ctx, allowedKey{}, allowed(list))
}

// AllowedTools returns the allowlist ctx carries and whether it carries one.
func AllowedTools(ctx context.Context) ([]string, bool) {
	list, ok := ctx.Value(allowedKey{}).(allowed)
	return slices.Clone(list), ok
}

// AllowFromContext enforces the list set by [WithAllowedTools] on the call's context: a call
// to a tool not on it gets a [tool.KindDenied] result naming the tools allowed for this run. A
// context without a list restricts nothing. As with [Allow], calls to tools that do not exist
// pass through.
func AllowFromContext() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			list, ok := ctx.Value(allowedKey{}).(allowed)
			if !ok || call.Tool == nil {
				return next(ctx, call)
			}
			if _, found := slices.BinarySearch(list, call.Name); found {
				return next(ctx, call)
			}
			reason := "this tool is not available to this user. Do not call it again."
			if len(list) > 0 {
				reason = "this tool is not available to this user; the tools available are " + strings.Join(list, ", ") + ". Do not call it again."
			}
			return refuse(call, reason)
		}
	}
}
