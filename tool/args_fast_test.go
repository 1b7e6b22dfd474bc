package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// slowArguments is Tool.Arguments without its fast path: what it did before plainArguments.
func slowArguments(t *Tool, raw string) (json.RawMessage, string, error) {
	args, repair, err := DecodeArguments(raw, t.limit)
	if err != nil {
		return nil, repair, &ArgumentError{Tool: t.name, Kind: KindInvalidJSON, Detail: err.Error(), Shape: t.shape}
	}
	if vs := t.validator.validate(args); len(vs) > 0 {
		return nil, repair, &ArgumentError{Tool: t.name, Kind: KindInvalidArguments, Violations: vs, Shape: t.shape}
	}
	return args, repair, nil
}

func fastPathTools(tb testing.TB) []*Tool {
	var tools []*Tool
	for _, c := range fastCases {
		tl, err := DefineRaw("t", "a tool", json.RawMessage(c.schema), func(context.Context, json.RawMessage) (string, error) { return "", nil }, Options{ArgumentLimit: 200})
		if err != nil {
			tb.Fatal(err)
		}
		tools = append(tools, tl)
	}
	return tools
}

// compareArguments holds Tool.Arguments to its slow path: the same object, the same repair,
// the same error.
func compareArguments(t *testing.T, tools []*Tool, raw string) {
	t.Helper()
	for i, tl := range tools {
		got, gotRepair, gotErr := tl.Arguments(raw)
		want, wantRepair, wantErr := slowArguments(tl, raw)
		if !bytes.Equal(got, want) || gotRepair != wantRepair || errText(gotErr) != errText(wantErr) {
			t.Errorf("schema %d, %q: Arguments = %s, %q, %v; the full path gives %s, %q, %v", i, raw, got, gotRepair, gotErr, want, wantRepair, wantErr)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		return "not an ArgumentError: " + err.Error()
	}
	return err.Error()
}

var argumentSeeds = []string{
	``, `null`, `{}`, ` {"city":"x"} `, `{"city":"x","days":3}`, `{"city":"x","days":9}`,
	`{"city":"x",}`, "```json\n{\"city\":\"x\"}\n```", `{"city":"x"}{"city":"y"}`, `{"city":"x"} trailing`,
	`{"city":"\ud800"}`, "{\"city\":\"\xff\"}", `{'city':'x'}`, `[1,2]`, `"x"`,
	`{"city":"` + string(bytes.Repeat([]byte("a"), 300)) + `"}`, // over the 200-byte limit
	"{\"city\":\"x\"}\u00a0", `{"city":"x","days":3.0}`, `{"city":"x","days":1e400}`,
}

func TestArgumentsFastPathAgrees(t *testing.T) {
	tools := fastPathTools(t)
	for _, c := range fastCases {
		for _, a := range append(append(c.valid, c.tricky...), argumentSeeds...) {
			compareArguments(t, tools, a)
		}
	}
}

func FuzzArgumentsFastPath(f *testing.F) {
	tools := fastPathTools(f)
	for _, c := range fastCases {
		for _, a := range append(c.valid, c.tricky...) {
			f.Add(a)
		}
	}
	for _, a := range argumentSeeds {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, raw string) { compareArguments(t, tools, raw) })
}

// The fast path's scanner is a JSON syntax check: whatever it accepts, encoding/json does.
func FuzzFastSyntax(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,2.5e-3,true,null,"\u00e9\n"]}`, `{"a":01}`, `{"a":"\x01"}`, `{"a":1.}`, `{"a":-}`, `{"a" 1}`, `[1,]`, "\"\xc3\"", `"\ud800"`, `1e5`, `-0`, ` [ ] `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := &validator{fast: anyValue}
		if v.accepts([]byte(s)) && !json.Valid([]byte(s)) {
			t.Fatalf("the fast path accepts %q, which is not valid JSON", s)
		}
	})
}
