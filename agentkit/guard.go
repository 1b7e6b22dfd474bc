package agentkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/toolcall/toolcall/tool"
)

// loopGuard counts how many consecutive turns made the same set of calls: same tool names,
// same arguments compared as JSON values (key order and spacing ignored), in any order.
type loopGuard struct {
	prev    []callKey
	repeats int
}

type callKey struct {
	name string
	args string // canonical JSON when decodable, else the raw text
}

// observe records the calls of a turn and returns how many turns in a row, this one
// included, made this same set of calls (1 for a new set).
func (g *loopGuard) observe(calls []tool.Call) int {
	keys := make([]callKey, len(calls))
	for i, c := range calls {
		keys[i] = callKey{c.Name, c.Arguments}
	}
	slices.SortFunc(keys, func(a, b callKey) int {
		if a.name != b.name {
			if a.name < b.name {
				return -1
			}
			return 1
		}
		return 0
	})
	if g.sameNames(keys) {
		// Only now pay for canonical arguments: most turns differ by name already.
		canonicalize(keys)
		canonicalize(g.prev)
		sortKeys(keys)
		sortKeys(g.prev)
		if slices.Equal(keys, g.prev) {
			g.repeats++
			g.prev = keys
			return g.repeats
		}
	}
	g.prev, g.repeats = keys, 1
	return 1
}

func (g *loopGuard) sameNames(keys []callKey) bool {
	if len(keys) != len(g.prev) {
		return false
	}
	for i := range keys {
		if keys[i].name != g.prev[i].name {
			return false
		}
	}
	return true
}

func sortKeys(keys []callKey) {
	slices.SortFunc(keys, func(a, b callKey) int {
		if a.name != b.name {
			if a.name < b.name {
				return -1
			}
			return 1
		}
		switch {
		case a.args < b.args:
			return -1
		case a.args > b.args:
			return 1
		}
		return 0
	})
}

// canonicalize replaces each key's arguments by canonical JSON: decoded and re-encoded,
// which sorts object keys and normalizes spacing. Idempotent.
func canonicalize(keys []callKey) {
	for i := range keys {
		var v any
		d := json.NewDecoder(bytes.NewReader([]byte(keys[i].args)))
		d.UseNumber()
		if d.Decode(&v) != nil {
			continue
		}
		if b, err := json.Marshal(v); err == nil {
			keys[i].args = string(b)
		}
	}
}

func loopContent(times int) string {
	return fmt.Sprintf("error: not executed: you already made exactly these tool calls %d times in a row and got the results above. Repeating them will not give a different result. Use the results you have, change the arguments, or answer the user.", times)
}

const loopStopContent = "error: not executed: these tool calls keep repeating; the run is being stopped."

// repeated reports whether call has the name and arguments of one of the previous turn's
// calls: such a call is not started early, so that the loop guard sees it first.
func (g *loopGuard) repeated(call tool.Call) bool {
	for _, k := range g.prev {
		if k.name != call.Name {
			continue
		}
		if k.args == call.Arguments {
			return true
		}
		one := []callKey{{call.Name, call.Arguments}}
		canonicalize(one)
		prev := []callKey{k}
		canonicalize(prev)
		if one[0].args == prev[0].args {
			return true
		}
	}
	return false
}
