package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

// isObjectByJSON is IsJSONObject's specification: json.Valid, and the first byte that is
// not whitespace opens an object.
func isObjectByJSON(s string) bool {
	t := strings.TrimLeft(s, " \t\n\r")
	return json.Valid([]byte(s)) && strings.HasPrefix(t, "{")
}

var jsonObjectCases = []string{
	``, ` `, `{}`, ` {} `, "\t{\"a\":1}\n", `{"a":[1,2.5e-3,true,null,"\u00e9\n"]}`, `[]`, `1`, `"s"`, `null`,
	`{"a":01}`, `{"a":"\x01"}`, `{"a":1.}`, `{"a":-}`, `{"a" 1}`, `{"a":1,}`, `{} {}`, `{}x`, `{`, `}`,
	"{\"a\":\"\xc3\"}", `{"a":"\ud800"}`, `{"城市":"北京"}`, `{"a":{"b":{"c":[[[]]]}}}`,
	strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300), // deeper than the fast path goes
	strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 299),
}

func TestIsJSONObject(t *testing.T) {
	for _, s := range jsonObjectCases {
		if got, want := IsJSONObject(s), isObjectByJSON(s); got != want {
			t.Errorf("IsJSONObject(%.40q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzIsJSONObject(f *testing.F) {
	for _, s := range jsonObjectCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsJSONObject(s), isObjectByJSON(s); got != want {
			t.Fatalf("IsJSONObject(%q) = %v, want %v", s, got, want)
		}
	})
}

func BenchmarkIsJSONObject(b *testing.B) {
	for _, tt := range []struct{ name, s string }{
		{"small", `{"city":"北京"}`},
		{"nested", `{"query":"weather","filters":{"cities":["北京","上海","广州"],"days":3,"units":"metric"},"limit":10}`},
	} {
		b.Run(tt.name+"/IsJSONObject", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !IsJSONObject(tt.s) {
					b.Fatal("not an object")
				}
			}
		})
		b.Run(tt.name+"/json.Valid", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !json.Valid([]byte(tt.s)) {
					b.Fatal("not valid")
				}
			}
		})
	}
}
