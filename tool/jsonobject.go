package tool

import (
	"encoding/json"
	"unsafe"
)

// IsJSONObject reports whether s is one JSON object (RFC 8259), with optional whitespace
// around it: the form the arguments of a tool call must have. It answers as json.Valid
// does, together with a check that the value is an object, and allocates nothing. It is
// what agentkit.ValidateHistory checks every call's arguments with: the validator's strict
// scan of the bytes decides valid objects, and json.Valid the rest.
func IsJSONObject(s string) bool {
	data := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	sc := scanner{data: data}
	sc.ws()
	if sc.pos >= len(data) || data[sc.pos] != '{' {
		return false
	}
	if sc.skip() { // the fast validator's syntax check: never looser than encoding/json
		sc.ws()
		if sc.pos == len(data) {
			return true
		}
	}
	// What the fast path does not accept (too deep, trailing bytes, or invalid) is left to
	// encoding/json.
	return json.Valid(data)
}
