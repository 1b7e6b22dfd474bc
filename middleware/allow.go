package middleware

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/tool"
)

// Allow refuses every call to a tool not named in names with a [tool.KindDenied] result that
// tells the model which tools it may use. An empty list allows nothing.
//
// Calls to tools that do not exist (call.Tool == nil) pass through, so the model reads the
// loop's unknown-tool result with its suggestions rather than a refusal of something that
// could never run.
func Allow(names ...string) tool.Middleware {
	set := nameSet(names)
	sorted := slices.Sorted(maps.Keys(set))
	reason := "this tool is not allowed here. Do not call it again."
	if len(sorted) > 0 {
		reason = "this tool is not allowed here; the allowed tools are " + strings.Join(sorted, ", ") + ". Do not call it again."
	}
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			if _, ok := set[call.Name]; !ok && call.Tool != nil {
				return refuse(call, reason)
			}
			return next(ctx, call)
		}
	}
}

// Deny refuses every call to a tool named in names with a [tool.KindDenied] result.
func Deny(names ...string) tool.Middleware {
	set := nameSet(names)
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			if _, ok := set[call.Name]; ok {
				return refuse(call, "this tool is not permitted here. Do not call it again.")
			}
			return next(ctx, call)
		}
	}
}

func nameSet(names []string) map[string]struct{} {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return set
}
