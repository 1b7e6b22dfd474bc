package agentkit

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolcall/toolcall/tool"
)

// dispatch is the innermost handler of the middleware chain: it runs the call's tool, or
// answers a call to an unknown tool.
func (a *Agent) dispatch(ctx context.Context, call tool.Call) tool.Result {
	if call.Tool == nil {
		return a.unknown(call, a.toolboxOf(ctx).names)
	}
	return call.Tool.Handle(ctx, call)
}

// unknown is the result of a call naming no tool: the model reads the available tools and,
// when one name is close, a suggestion.
func (a *Agent) unknown(call tool.Call, names []string) tool.Result {
	var b strings.Builder
	if call.Name == "" || call.Name == MissingToolName {
		b.WriteString("error: this tool call has no tool name.")
	} else {
		fmt.Fprintf(&b, "error: there is no tool named %q.", call.Name)
	}
	if len(names) == 0 {
		b.WriteString(" No tools are available: answer without calling tools.")
	} else {
		fmt.Fprintf(&b, " Available tools: %s.", strings.Join(names, ", "))
		if s := nearest(call.Name, names); s != "" {
			fmt.Fprintf(&b, " Did you mean %q?", s)
		}
		b.WriteString(" Call one of the available tools, or answer without one.")
	}
	return tool.Result{Kind: tool.KindUnknownTool, Err: fmt.Errorf("unknown tool %q", call.Name), Content: b.String()}
}

// nearest returns the name closest to s when it is close enough to be what the model meant:
// equal ignoring case and '-'/'_'/'.' separators, or within an edit distance of a third of
// its length (at least 1, at most 3). Ties go to the first name in sorted order.
func nearest(s string, names []string) string {
	fold := func(x string) string {
		return strings.Map(func(r rune) rune {
			switch r {
			case '-', '_', '.', ' ':
				return -1
			}
			return r
		}, strings.ToLower(x))
	}
	fs := fold(s)
	best, bestD := "", 1<<30
	for _, n := range names {
		fn := fold(n)
		if fn == fs {
			return n
		}
		if d := levenshtein(fs, fn); d < bestD {
			best, bestD = n, d
		}
	}
	limit := min(max(len([]rune(fs))/3, 1), 3)
	if bestD <= limit {
		return best
	}
	return ""
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
