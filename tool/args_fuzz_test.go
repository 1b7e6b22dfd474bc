package tool

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeArguments checks the contract of DecodeArguments on any text: it never panics
// nor hangs; it returns either one JSON object and no error, or nil and an error; a repair
// is always described; and decoding its output again gives the output back, unrepaired.
func FuzzDecodeArguments(f *testing.F) {
	for _, tc := range repairCases {
		f.Add(tc.in)
	}
	for _, tc := range refuseCases {
		if len(tc.in) <= 1<<10 {
			f.Add(tc.in)
		}
	}
	for _, s := range []string{"", " ", "null", "{}", `{"a":1}`, "```", "{", "}", `"`, `"{`, "{'", "{“", "[", "/*", "{/", "{a:(", "\uFEFF", "{\"a\":\"\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		obj, repair, err := decodeWithin(t, raw, 10*time.Second)
		if err != nil {
			if obj != nil || repair != "" {
				t.Fatalf("DecodeArguments(%q) = %q, %q, %v; want nil, empty with an error", raw, obj, repair, err)
			}
			if err.Error() == "" {
				t.Fatalf("DecodeArguments(%q): empty error message", raw)
			}
			return
		}
		if !json.Valid(obj) || len(obj) == 0 || obj[0] != '{' {
			t.Fatalf("DecodeArguments(%q) = %q, want one JSON object", raw, obj)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(obj, &m); err != nil {
			t.Fatalf("DecodeArguments(%q) = %q, which does not decode as an object: %v", raw, obj, err)
		}
		trimmed := strings.Trim(raw, " \t\r\n")
		noArgs := trimmed == "" || trimmed == "null"
		if string(obj) != trimmed && !noArgs && repair == "" {
			t.Fatalf("DecodeArguments(%q) = %q with no repair described", raw, obj)
		}
		again, repair2, err := DecodeArguments(string(obj), 0)
		if err != nil || string(again) != string(obj) || repair2 != "" {
			t.Fatalf("DecodeArguments(%q) = %q, %q, %v; want %q again, unrepaired (input %q)", obj, again, repair2, err, obj, raw)
		}
	})
}

// decodeWithin runs DecodeArguments, failing the test if it takes longer than d: the fuzzing
// engine reports panics but not hangs.
func decodeWithin(t *testing.T, raw string, d time.Duration) (obj []byte, repair string, err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		obj, repair, err = DecodeArguments(raw, 0)
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return obj, repair, err
	case <-timer.C:
		t.Fatalf("DecodeArguments(%q) still running after %v", raw, d)
		return nil, "", nil
	}
}
