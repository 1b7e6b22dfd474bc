package middleware

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolcall/toolcall/tool"
)

// TestRedactJSON: redactJSON hides the values of the names it is told to, at any depth, and
// refuses nesting past its bound before reading further, so 10 MB of [ costs a few tokens.
func TestRedactJSON(t *testing.T) {
	hide := func(name string) bool { return name == "password" }
	tests := []struct {
		name, in, want string
		hidden         bool
		wantErr        error
	}{
		{"nothing to hide", `{"a": 1, "b": [true, null]}`, `{"a":1,"b":[true,null]}`, false, nil},
		{"a value at any depth", `{"user":{"password":{"x":[1]},"name":"李"},"password":"s"}`, `{"user":{"password":"[redacted]","name":"李"},"password":"[redacted]"}`, true, nil},
		{"a string value named like a key is kept", `{"note":"password"}`, `{"note":"password"}`, false, nil},
		{"in arrays of objects", `[{"password":1},{"p":2}]`, `[{"password":"[redacted]"},{"p":2}]`, true, nil},
		{"3 levels, bound 2", `{"a":[{"b":1}]}`, "", false, errTooDeep},
		{"brackets in strings do not count", `{"a":"[[[[{{{{"}`, `{"a":"[[[[{{{{"}`, false, nil},
		{"10 MB of [", strings.Repeat("[", 10<<20), "", false, errTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			depth := argumentsMaxDepth
			if tt.name == "3 levels, bound 2" {
				depth = 2
			}
			got, hidden, err := redactJSON([]byte(tt.in), depth, hide)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if string(got) != tt.want || hidden != tt.hidden {
				t.Errorf("got %s, %v; want %s, %v", got, hidden, tt.want, tt.hidden)
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

// FuzzStructureAndRedact holds the two readers of outside JSON here — Structure, on every
// result, and Log's redaction, on validated arguments — to their contract on any input, deep
// and huge ones among the seeds: never a panic, Structure's output either the content itself
// or lines, and redaction's output valid JSON that hides every value it must.
func FuzzStructureAndRedact(f *testing.F) {
	for _, s := range []string{
		`{"city":"北京","now":{"temp":21.5},"hours":[20,21]}`, `[{"a":1},{"password":"x"}]`, `"x"`, `{}`, `[]`,
		strings.Repeat("[", 100_000), strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000),
		`{"password":{"password":1}}`, `{"a":"\u0000\ud800"}`, "{\"a\":\"\xff\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		inner := func(context.Context, tool.Call) tool.Result { return tool.Result{Content: s} }
		res := Structure()(inner)(context.Background(), tool.Call{Name: "f"})
		if res.Content != s && res.Original != s {
			t.Errorf("Structure rewrote %q into %q without keeping the original", s, res.Content)
		}
		out, hidden, err := redactJSON([]byte(s), argumentsMaxDepth, func(name string) bool { return name == "password" })
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Errorf("redactJSON(%q) = %q, not JSON", s, out)
		}
		if hidden != strings.Contains(string(out), `"[redacted]"`) && !strings.Contains(s, `[redacted]`) {
			t.Errorf("redactJSON(%q) = %q, hidden %v", s, out, hidden)
		}
	})
}
