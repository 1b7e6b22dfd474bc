package agentkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolcall/toolcall/tool"
)

// loopGuard counts how many consecutive turns made the same set of calls: same tool names,
// same arguments compared as JSON values (key order and spacing ignored), in any order.
type loopGuard struct {
	prev    []callKey
	spare   []callKey // the buffer observe fills next: two buffers take turns
	repeats int
}

type callKey struct {
	name string
	args string // canonical JSON when decodable, else the raw text
	raw  string // the arguments as sent
	done bool   // args is canonical
}

// observe records the calls of a turn and returns how many turns in a row, this one
// included, made this same set of calls (1 for a new set).
func (g *loopGuard) observe(calls []tool.Call) int {
	keys := g.spare[:0]
	for _, c := range calls {
		keys = append(keys, callKey{name: c.Name, args: c.Arguments, raw: c.Arguments})
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
		if sameRaw(keys, g.prev) {
			g.spare = keys
			g.repeats++
			return g.repeats
		}
		if !mayEqual(keys, g.prev) {
			g.prev, g.spare, g.repeats = keys, g.prev, 1
			return 1
		}
		// Only now pay for canonical arguments: most turns differ by name already.
		canonicalize(keys)
		canonicalize(g.prev)
		sortKeys(keys)
		sortKeys(g.prev)
		if slices.EqualFunc(keys, g.prev, func(a, b callKey) bool { return a.name == b.name && a.args == b.args }) {
			g.repeats++
			g.prev, g.spare = keys, g.prev
			return g.repeats
		}
	}
	g.prev, g.spare, g.repeats = keys, g.prev, 1
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
		if keys[i].done {
			continue
		}
		keys[i].done = true
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
		one := []callKey{{name: call.Name, args: call.Arguments, raw: call.Arguments}}
		canonicalize(one)
		prev := []callKey{k}
		canonicalize(prev)
		if one[0].args == prev[0].args {
			return true
		}
	}
	return false
}

// sameRaw reports whether a and b, sorted alike, have byte-identical arguments.
func sameRaw(a, b []callKey) bool {
	for i := range a {
		if a[i].raw != b[i].raw {
			return false
		}
	}
	return true
}

// mayEqual is a necessary condition, without allocating, for two sets of calls with the same
// names to have the same canonical arguments: when no argument text has a backslash escape,
// canonical forms only drop whitespace and reorder members, so both sets must have the same
// bytes, whitespace aside. (It uses the raw texts, which prev keeps.) Objects with duplicate
// keys, which decoding collapses, may be reported unequal: a missed repeat, never a false one.
func mayEqual(a, b []callKey) bool {
	var h [256]int32
	for i := range a {
		for j := 0; j < len(a[i].raw); j++ {
			h[a[i].raw[j]]++
		}
		for j := 0; j < len(b[i].raw); j++ {
			h[b[i].raw[j]]--
		}
	}
	if h['\\'] != 0 || hasEscape(a) {
		return true // an escape can spell the same string with other bytes
	}
	for c, n := range h {
		if n != 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

func hasEscape(a []callKey) bool {
	for i := range a {
		if strings.IndexByte(a[i].raw, '\\') >= 0 {
			return true
		}
	}
	return false
}
