package middleware

import (
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/toolcall/toolcall/tool"
)

// Truncate caps the content of every result at limit characters (Unicode code points, not
// bytes: a Chinese character counts one, as it costs about one token, where it is three bytes
// of UTF-8). Longer content keeps its head and its tail — the head gets the extra character
// of an odd limit — joined by a marker line stating the original size and what was cut:
//
//	…[truncated: 12034 characters in all; 8034 from the middle omitted]…
//
// so the model knows it did not see everything and can ask for less. The cut falls between
// code points, never inside a UTF-8 sequence (it may split a grapheme cluster such as an emoji
// with modifiers). The marker is added on top of the limit: the model reads at most limit
// characters of the tool's output plus one line of under 80.
//
// Failed results are capped too. Content is never left empty (an empty success becomes
// [tool.EmptyContent]). When Truncate shortens a result it sets Result.Original to the full
// content, unless an inner middleware had already set it: Original always holds the tool's
// own output, which the run's record keeps for the application.
//
// When the call's context carries a [Budget] ([WithBudget]), each result also draws on it;
// see Budget. Install Truncate once per chain: two would both draw on the budget.
//
// Truncate panics if limit is not positive.
func Truncate(limit int) tool.Middleware {
	if limit <= 0 {
		panic("middleware.Truncate: limit must be positive, got " + strconv.Itoa(limit))
	}
	floor := min(limit, budgetFloor)
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			res := next(ctx, call)
			if res.Content == "" {
				if !res.Failed() {
					res.Content = tool.EmptyContent
				}
				return res
			}
			keep := limit
			if b := BudgetFromContext(ctx); b != nil {
				keep = b.take(utf8.RuneCountInString(res.Content), limit, floor)
			}
			if cut, ok := truncateMiddle(res.Content, keep); ok {
				if res.Original == "" {
					res.Original = res.Content
				}
				res.Content = cut
			}
			return res
		}
	}
}

// truncateMiddle returns s cut to keep code points, head and tail around a marker, and
// whether it had to cut. keep must be positive.
func truncateMiddle(s string, keep int) (string, bool) {
	if len(s) <= keep { // at most len(s) code points: the common case costs nothing
		return s, false
	}
	n := utf8.RuneCountInString(s)
	if n <= keep {
		return s, false
	}
	head, tail := keep-keep/2, keep/2
	hi := 0
	for range head {
		_, size := utf8.DecodeRuneInString(s[hi:])
		hi += size
	}
	ti := len(s)
	for range tail {
		_, size := utf8.DecodeLastRuneInString(s[:ti])
		ti -= size
	}
	marker := fmt.Sprintf("\n…[truncated: %d characters in all; %d from the middle omitted]…\n", n, n-keep)
	return s[:hi] + marker + s[ti:], true
}
