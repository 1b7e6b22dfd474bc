package agentkit

import (
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolcall/toolcall/tool"
)

// loopGuard counts how many consecutive turns made the same set of calls: same tool names,
// same arguments compared as JSON values (key order, spacing and string escapes ignored;
// numbers as written), in any order.
type loopGuard struct {
	prev    []string // the previous turn's call keys, sorted
	repeats int
}

// observe records the calls of a turn and returns how many turns in a row, this one
// included, made this same set of calls (1 for a new set).
func (g *loopGuard) observe(calls []tool.Call) int {
	keys := make([]string, len(calls))
	for i, c := range calls {
		keys[i] = callKey(c)
	}
	slices.Sort(keys)
	if slices.Equal(keys, g.prev) {
		g.repeats++
	} else {
		g.prev, g.repeats = keys, 1
	}
	return g.repeats
}

// repeated reports whether call has the name and arguments of one of the previous turn's
// calls: such a call is not started early, so that the loop guard sees it first.
func (g *loopGuard) repeated(call tool.Call) bool {
	_, found := slices.BinarySearch(g.prev, callKey(call))
	return found
}

// callKey is a call's name and its arguments in a canonical form: reformatted by jsontext
// with object members sorted, or as sent when they are not JSON.
func callKey(c tool.Call) string {
	v := jsontext.Value(c.Arguments)
	if v.Format(jsontext.ReorderRawObjects(true)) != nil {
		return c.Name + "\x00" + c.Arguments
	}
	return c.Name + "\x00" + string(v)
}

func loopContent(times int) string {
	return fmt.Sprintf("error: not executed: you already made exactly these tool calls %d times in a row and got the results above. Repeating them will not give a different result. Use the results you have, change the arguments, or answer the user.", times)
}

const loopStopContent = "error: not executed: these tool calls keep repeating; the run is being stopped."
