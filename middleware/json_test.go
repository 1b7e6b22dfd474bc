package middleware

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseJSONDepth: parseJSON refuses nesting past its bound before reading further, so
// 10 MB of [ costs a few tokens, not a 10-million-frame recursion.
func TestParseJSONDepth(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		depth   int
		wantErr error // nil: parsed
	}{
		{"scalar at depth 0", `1`, 0, nil},
		{"object at depth 0", `{}`, 0, errTooDeep},
		{"3 levels, bound 3", `{"a":[{"b":1}]}`, 3, nil},
		{"3 levels, bound 2", `{"a":[{"b":1}]}`, 2, errTooDeep},
		{"brackets in strings do not count", `{"a":"[[[[{{{{"}`, 1, nil},
		{"10 MB of [", strings.Repeat("[", 10<<20), 64, errTooDeep},
		{"10 MB of [ closed", strings.Repeat("[", 5<<20) + strings.Repeat("]", 5<<20), 64, errTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseJSON([]byte(tt.in), tt.depth)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestDecodeAny: decodeAny decodes as encoding/json with UseNumber does, within its bound.
func TestDecodeAny(t *testing.T) {
	for _, in := range []string{
		`{"a":1,"b":[true,null,"x",1.50,{"c":{}}],"d":[],"e":"é\n"}`,
		`{"dup":1,"dup":2}`,
		`[[[[[[[[1]]]]]]]]`,
	} {
		got, err := decodeAny([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-encoding/json +decodeAny):\n%s", in, diff)
		}
	}
	atBound := strings.Repeat("[", argumentsMaxDepth) + strings.Repeat("]", argumentsMaxDepth)
	if _, err := decodeAny([]byte(atBound)); err != nil {
		t.Errorf("%d levels: %v", argumentsMaxDepth, err)
	}
	for _, in := range []string{
		strings.Repeat("[", argumentsMaxDepth+1) + strings.Repeat("]", argumentsMaxDepth+1),
		strings.Repeat("[", 10<<20),
	} {
		if _, err := decodeAny([]byte(in)); !errors.Is(err, errTooDeep) {
			t.Errorf("%d bytes nested %d deep: err %v, want %v", len(in), strings.Count(in, "["), err, errTooDeep)
		}
	}
}
