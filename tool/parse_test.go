package tool

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseArguments(t *testing.T) {
	tests := []struct {
		name, in  string
		canonical string // "" when refused
		err       string
	}{
		{"minimal form", ` { "a" : [1, 2.50, -0, 1e3], "b":{"c":null,"d":true} } `, `{"a":[1,2.50,-0,1e3],"b":{"c":null,"d":true}}`, ""},
		{"shortest strings", `{"s":"\u5317\/\u003c\u0041","t":"\ud83d\ude00\n\u0001"}`, `{"s":"北/<A","t":"😀\n\u0001"}`, ""},
		{"names as written, order kept", `{"z":1,"City":2,"city":3}`, `{"z":1,"City":2,"city":3}`, ""},
		{"duplicate", `{"a":1,"a":2}`, "", `duplicate property "a": send each property once`},
		{"duplicate through an escape", `{"a":1,"\u0061":2}`, "", `duplicate property "a"`},
		{"nested duplicate", `{"o":[{"k":1},{"k":1,"k":2}]}`, "", `duplicate property "k"`},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", "", "invalid UTF-8 at /a"},
		{"half a surrogate pair", `{"a":"\ud800"}`, "", "invalid surrogate pair"},
		{"64 levels", `{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`, `{"a":` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`, ""},
		{"65 levels", `{"a":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`, "", "the JSON nests deeper than 64 levels"},
		{"over the limit", `{"a":"` + strings.Repeat("x", 100) + `"}`, "", "arguments are 108 bytes, over the 100-byte limit"},
		{"not an object", `["city"]`, "", "expected one JSON object"},
		{"not JSON", `{"city":`, "", "unexpected EOF"},
		{"two values", `{}{}`, "", "unexpected text after the object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := 200
			if strings.HasPrefix(tt.name, "over") {
				limit = 100
			}
			tree, canonical, err := parseArguments([]byte(tt.in), limit)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parseArguments(%.60q) = %s, %v; want an error containing %q", tt.in, canonical, err, tt.err)
				}
				var dup *duplicateError
				if isDup := strings.HasPrefix(tt.name, "duplicate") || strings.HasPrefix(tt.name, "nested duplicate"); errors.As(err, &dup) != isDup {
					t.Errorf("parseArguments(%q) error %T, want a *duplicateError: %v", tt.in, err, isDup)
				}
				return
			}
			if err != nil || string(canonical) != tt.canonical {
				t.Fatalf("parseArguments(%.60q) = %s, %v; want %s", tt.in, canonical, err, tt.canonical)
			}
			again, _, err := parseArguments(canonical, len(canonical))
			if err != nil || !reflect.DeepEqual(tree, again) { // not cmp: its slice diff is exponential in depth
				t.Errorf("the canonical text parses to %v (%v), the input to %v", again, err, tree)
			}
		})
	}
}
