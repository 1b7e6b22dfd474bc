package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

type (
	propHome struct {
		Street string `json:"street,omitempty"`
		Zip    int    `json:"zip,omitempty"`
	}
	propIn struct {
		City  string            `json:"city,omitempty"`
		Days  int               `json:"days,omitempty"`
		Ratio float64           `json:"ratio,omitempty"`
		On    *bool             `json:"on,omitempty"`
		Tags  []string          `json:"tags,omitempty"`
		Home  *propHome         `json:"home,omitempty"`
		Extra map[string]string `json:"extra,omitempty"`
	}
)

// propSchemas are the schemas the property test runs under: open to other properties (so
// that case variants pass validation and must not reach a field), and the reflected one,
// closed.
var propSchemas = []string{
	`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"ratio":{"type":"number"},"on":{"type":"boolean"},
		"tags":{"type":"array","items":{"type":"string"}},"home":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"integer"}}},
		"extra":{"type":"object","additionalProperties":{"type":"string"}}},"additionalProperties":true}`,
	`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":0,"maximum":1000},"home":{"type":"object"}}}`,
	"", // reflected
}

// TestValueRunIsValueValidated is the property of issue 13: for any arguments, the value a
// tool runs with, encoded again, is the object that was validated and that Arguments shows —
// whatever case variants, duplicates, escapes and repairs the model's text holds.
func TestValueRunIsValueValidated(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for si, schema := range propSchemas {
		var opts []Options
		if schema != "" {
			opts = append(opts, Options{Schema: json.RawMessage(schema)})
		}
		var ran propIn
		tl := New("prop", "the property", func(_ context.Context, in propIn) (string, error) {
			ran = in
			return "ok", nil
		}, opts...)
		var rawGot json.RawMessage
		rt, err := Raw("prop", "the property", tl.Parameters(), func(_ context.Context, args json.RawMessage) (string, error) {
			rawGot = args
			return "ok", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		accepted := 0
		for range 3000 {
			raw, dup := randomArguments(rng)
			args, _, err := tl.Arguments(raw)
			if dup && err == nil {
				t.Fatalf("schema %d: Arguments(%s) = %s: duplicate names must be refused", si, raw, args)
			}
			if err != nil {
				continue
			}
			accepted++
			ran = propIn{}
			if res := tl.Handle(context.Background(), Call{ID: "1", Arguments: raw}); res.Failed() {
				t.Fatalf("schema %d: Arguments(%s) accepted, Handle refused: %s", si, raw, res.Content)
			}
			if diff := cmp.Diff(project(t, args), reencode(t, ran)); diff != "" {
				t.Fatalf("schema %d: %s: the tool ran with a value other than the validated %s (-validated +ran):\n%s", si, raw, args, diff)
			}
			if !jsontext.Value(args).IsValid() {
				t.Fatalf("schema %d: Arguments(%s) = %s, not canonical JSON (duplicates or invalid UTF-8)", si, raw, args)
			}
			rawGot = nil
			if res := rt.Handle(context.Background(), Call{ID: "1", Arguments: raw}); !res.Failed() && string(rawGot) != string(args) {
				t.Fatalf("schema %d: %s: the raw tool ran with %s, Arguments shows %s", si, raw, rawGot, args)
			}
		}
		if accepted < 300 {
			t.Errorf("schema %d: only %d of 3000 random arguments were accepted: the test tests little", si, accepted)
		}
	}
}

// project keeps, of the canonical arguments, what propIn has a field for (by exact name), as
// the plain JSON values encoding/json decodes; zero values go, as omitempty drops them.
func project(t *testing.T, args []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[propIn]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch v, ok := m[name]; {
		case ok && name == "home" && v != nil: // a pointer to a struct: {} is not nil
			out[name] = dropZero(v.(map[string]any))
		case ok && !zero(v):
			out[name] = v
		}
	}
	return out
}

// reencode is the value the tool ran with, as the same plain JSON values.
func reencode(t *testing.T, in propIn) map[string]any {
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func zero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case float64:
		return v == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

func dropZero(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !zero(v) && (k == "street" || k == "zip") {
			out[k] = v
		}
	}
	return out
}

// randomArguments writes a random arguments object, sometimes malformed as models write them;
// dup reports a name sent twice in one object.
func randomArguments(rng *rand.Rand) (raw string, dup bool) {
	names := []string{"city", "City", "CITY", "days", "Days", "ratio", "on", "tags", "home", "Home", "extra", "x", "c\\u0069ty"}
	var b strings.Builder
	seen := map[string]bool{}
	b.WriteString("{")
	for i := range rng.IntN(6) {
		name := names[rng.IntN(len(names))]
		key := strings.ReplaceAll(name, `\u0069`, "i")
		dup = dup || seen[key]
		seen[key] = true
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%s", name, randomValue(rng, strings.ToLower(key)))
		b.WriteString(strings.Repeat(" ", rng.IntN(2)))
	}
	if rng.IntN(8) == 0 {
		b.WriteString(",") // a trailing comma: repaired
	}
	b.WriteString("}")
	raw = strings.ReplaceAll(b.String(), `"c\\u0069ty"`, `"c\u0069ty"`)
	if rng.IntN(8) == 0 {
		raw = "```json\n" + raw + "\n```"
	}
	return raw, dup
}

func randomValue(rng *rand.Rand, name string) string {
	if rng.IntN(10) == 0 {
		return []string{"null", `"s"`, "1", "1.5", "true", "[]", "{}"}[rng.IntN(7)]
	}
	switch name {
	case "city", "x":
		return []string{`"北京"`, `"a\"b"`, `"\u5317"`, `""`, `"x y"`}[rng.IntN(5)]
	case "days":
		return []string{"0", "3", "-2", "1000", "7"}[rng.IntN(5)]
	case "ratio":
		return []string{"0.5", "1e2", "-0", "3"}[rng.IntN(4)]
	case "on":
		return []string{"true", "false"}[rng.IntN(2)]
	case "tags":
		return []string{`["a","b"]`, `[]`, `["\u00e9"]`}[rng.IntN(3)]
	case "home":
		return []string{`{"street":"s","zip":1}`, `{"Street":"S","street":"t"}`, `{"zip":2,"zip":3}`, `{}`}[rng.IntN(4)]
	}
	return []string{`{"k":"v"}`, `{"K":"v","k":"w"}`, `{}`}[rng.IntN(3)]
}

// FuzzArgumentsDeepAndHuge: repeated units — brackets, quotes, escapes — make text as deep
// or as long as the limit lets in; no input crashes a tool's argument pipeline or takes long.
func FuzzArgumentsDeepAndHuge(f *testing.F) {
	for _, s := range []string{"[", "{", `{"a":`, `"`, `\`, "[{", `{"a":[`, "]", "}", `"\u`, "1", ",", "'", "“"} {
		f.Add(s, `{"a":`, uint16(60000))
	}
	tl, err := Raw("deep", "takes anything", json.RawMessage(`{"type":"object"}`),
		func(context.Context, json.RawMessage) (string, error) { return "ok", nil }, Options{ArgumentLimit: 4 << 20})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, unit, prefix string, n uint16) {
		raw := prefix + strings.Repeat(unit, int(n))
		if len(raw) > 4<<20 {
			return
		}
		start := time.Now()
		args, _, err := tl.Arguments(raw)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("Arguments(%d bytes of %q) took %v", len(raw), unit, d)
		}
		if err == nil && !jsontext.Value(args).IsValid() {
			t.Fatalf("Arguments(%.40q…) = %.40q…: not valid JSON", raw, args)
		}
		_, _ = Raw("deep", "a schema from outside", json.RawMessage(raw), func(context.Context, json.RawMessage) (string, error) { return "", nil })
	})
}
