package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

type (
	valItem struct {
		Name string `json:"name" jsonschema:"minLength=2"`
		Qty  int    `json:"qty,omitempty" jsonschema:"minimum=1"`
	}
	valAddress struct {
		Street string `json:"street"`
	}
	valArgs struct {
		City  string         `json:"city" jsonschema:"description=城市中文名，例如：北京"`
		Days  int            `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
		Unit  string         `json:"unit,omitempty" jsonschema:"enum=c,enum=f"`
		Level int            `json:"level,omitempty" jsonschema:"enum=1,enum=2"`
		Code  string         `json:"code,omitempty" jsonschema:"pattern=^[A-Z]{3}$"`
		Email string         `json:"email,omitempty" jsonschema:"format=email"`
		At    *time.Time     `json:"at,omitempty"`
		Ratio float64        `json:"ratio,omitempty" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1"`
		Step  int            `json:"step,omitempty" jsonschema:"multipleOf=5"`
		Note  string         `json:"note,omitempty" jsonschema:"maxLength=5"`
		Items []valItem      `json:"items,omitempty" jsonschema:"maxItems=3"`
		Home  *valAddress    `json:"home,omitempty"`
		Count uint           `json:"count,omitempty"`
		ByID  map[int]string `json:"by_id,omitempty"`
	}
)

func mustValidator(t testing.TB, typ reflect.Type, strict bool) *validator {
	t.Helper()
	schema, err := reflectSchema(typ)
	if err != nil {
		t.Fatal(err)
	}
	if strict {
		if schema, err = strictSchema(schema); err != nil {
			t.Fatal(err)
		}
	}
	v, err := compileValidator(schema)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// check parses args as the parse stage does and validates the tree; a refusal of the parse
// stage is returned as one violation at the root.
func check(t testing.TB, v *validator, args string) []Violation {
	t.Helper()
	tree, _, err := parseArguments([]byte(args), DefaultArgumentLimit)
	if err != nil {
		return []Violation{{Path: "", Message: "parse: " + err.Error()}}
	}
	return v.validate(tree)
}

const valKnown = "unknown property; known properties: at, by_id, city, code, count, days, email, home, items, level, note, ratio, step, unit"

func TestValidate(t *testing.T) {
	v := mustValidator(t, reflect.TypeFor[valArgs](), false)
	tests := []struct {
		name string
		args string
		want []Violation
	}{
		{"minimal", `{"city":"北京"}`, nil},
		{"everything", `{"city":"北京","days":7,"unit":"f","level":2,"code":"PEK","email":"a@b.co","at":"2025-01-31T09:30:00Z",
			"ratio":0.5,"step":-10,"note":"short","items":[{"name":"ab","qty":1}],"home":{"street":"长安街"},"count":0}`, nil},
		{"null for optional properties", `{"city":"x","days":null,"unit":null,"home":null,"items":null}`, nil},
		{"integral number for an integer", `{"city":"x","days":3.0}`, nil},
		{"missing required property", `{}`,
			[]Violation{{"/city", "required property is missing (string: 城市中文名，例如：北京)"}}},
		{"null for a required property", `{"city":null}`,
			[]Violation{{"/city", "expected string, got null"}}},
		{"type", `{"city":3}`,
			[]Violation{{"/city", "expected string, got number 3"}}},
		{"type of an optional property", `{"city":"x","days":"3"}`,
			[]Violation{{"/days", `expected integer or null, got string "3"`}}},
		{"fraction for an integer", `{"city":"x","days":2.5}`,
			[]Violation{{"/days", `expected integer or null, got number 2.5`}}},
		{"enum of strings", `{"city":"x","unit":"k"}`,
			[]Violation{{"/unit", `expected one of "c", "f", null; got "k"`}}},
		{"enum of integers", `{"city":"x","level":3}`,
			[]Violation{{"/level", `expected one of 1, 2, null; got 3`}}},
		{"minimum", `{"city":"x","days":0}`,
			[]Violation{{"/days", "expected a number >= 1, got 0"}}},
		{"maximum", `{"city":"x","days":8}`,
			[]Violation{{"/days", "expected a number <= 7, got 8"}}},
		{"exclusive minimum", `{"city":"x","ratio":0}`,
			[]Violation{{"/ratio", "expected a number > 0, got 0"}}},
		{"exclusive maximum", `{"city":"x","ratio":1.0}`,
			[]Violation{{"/ratio", "expected a number < 1, got 1.0"}}},
		{"multipleOf", `{"city":"x","step":7}`,
			[]Violation{{"/step", "expected a multiple of 5, got 7"}}},
		{"unsigned", `{"city":"x","count":-1}`,
			[]Violation{{"/count", "expected a number >= 0, got -1"}}},
		{"pattern", `{"city":"x","code":"pek"}`,
			[]Violation{{"/code", `expected a string matching the pattern ^[A-Z]{3}$, got "pek"`}}},
		{"email format", `{"city":"x","email":"nope"}`,
			[]Violation{{"/email", `expected an email address (like name@example.com), got "nope"`}}},
		{"date-time format", `{"city":"x","at":"tomorrow"}`,
			[]Violation{{"/at", `expected an RFC 3339 date-time (like 2025-01-31T09:30:00Z), got "tomorrow"`}}},
		{"maxLength", `{"city":"x","note":"toolong"}`,
			[]Violation{{"/note", `expected at most 5 characters, got 7: "toolong"`}}},
		{"long values are shortened", `{"city":"x","code":"` + strings.Repeat("A", 100) + `"}`,
			[]Violation{{"/code", `expected a string matching the pattern ^[A-Z]{3}$, got "` + strings.Repeat("A", 58) + `…`}}},
		{"unknown property", `{"city":"x","town":"y"}`,
			[]Violation{{"/town", valKnown}}},
		{"unknown property in a nested object", `{"city":"x","home":{"street":"s","zip":"1"}}`,
			[]Violation{{"/home/zip", "unknown property; known properties: street"}}},
		{"nested path through a nullable object", `{"city":"x","home":{"street":1}}`,
			[]Violation{{"/home/street", "expected string, got number 1"}}},
		{"nullable object of the wrong type", `{"city":"x","home":"长安街"}`,
			[]Violation{{"/home", `expected object or null, got string "长安街"`}}},
		{"array item path", `{"city":"x","items":[{"name":"ab"},{"name":"a","qty":0}]}`,
			[]Violation{
				{"/items/1/name", `expected at least 2 characters, got 1: "a"`},
				{"/items/1/qty", "expected a number >= 1, got 0"},
			}},
		{"array item type", `{"city":"x","items":["ab"]}`,
			[]Violation{{"/items/0", `expected object, got string "ab"`}}},
		{"missing property in an array item", `{"city":"x","items":[{}]}`,
			[]Violation{{"/items/0/name", "required property is missing (string)"}}},
		{"maxItems", `{"city":"x","items":[{"name":"aa"},{"name":"bb"},{"name":"cc"},{"name":"dd"}]}`,
			[]Violation{{"/items", "expected at most 3 items, got 4"}}},
		{"several violations, sorted by path", `{"unit":"k","days":0,"zz":true,"aa":1}`,
			[]Violation{
				{"/aa", valKnown},
				{"/city", "required property is missing (string: 城市中文名，例如：北京)"},
				{"/days", "expected a number >= 1, got 0"},
				{"/unit", `expected one of "c", "f", null; got "k"`},
				{"/zz", valKnown},
			}},
		{"huge exponents", `{"city":"x","days":1e999999,"items":[{"name":"ab","qty":-2E+0000001001}],"ratio":1e-999}`,
			[]Violation{
				{"/days", "number out of range, got 1e999999"},
				{"/items/0/qty", "number out of range, got -2E+0000001001"},
			}},
		{"case variant of a known property", `{"City":"x","city":"y"}`,
			[]Violation{{"/City", `unknown property; did you mean "city"?`}}},
		{"key of an integer-keyed map", `{"city":"x","by_id":{"12":"a","x":"b"}}`,
			[]Violation{{"/by_id/x", "unknown property; property names must match ^[0-9]+$"}}},
		{"escaped property name", `{"ci\u0074y":"x","a/b":1}`,
			[]Violation{{"/a~1b", valKnown}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(t, v, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("validate(%s) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// Compiled from the strict schema, the validator requires every property, and accepts null
// for the ones that were optional.
func TestValidateStrictSchema(t *testing.T) {
	type in struct {
		City string      `json:"city"`
		Days int         `json:"days,omitempty" jsonschema:"minimum=1"`
		Home *valAddress `json:"home"`
	}
	v := mustValidator(t, reflect.TypeFor[in](), true)
	tests := []struct {
		args string
		want []Violation
	}{
		{`{"city":"x","days":null,"home":null}`, nil},
		{`{"city":"x","days":2,"home":{"street":"s"}}`, nil},
		{`{"city":"x"}`, []Violation{
			{"/days", "required property is missing (integer or null)"},
			{"/home", "required property is missing (object or null)"},
		}},
		{`{"city":"x","days":0,"home":{"street":"s","n":1}}`, []Violation{
			{"/days", "expected a number >= 1, got 0"},
			{"/home/n", "unknown property; known properties: street"},
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, check(t, v, tt.args)); diff != "" {
			t.Errorf("validate(%s) (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestValidateUserSchema(t *testing.T) {
	schema := `{"type":"object","properties":{
		"kind":{"const":"point"},
		"p":{"$ref":"#/$defs/point"},
		"v":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"number","minimum":100}]},
		"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},
		"required":["kind","p"],
		"$defs":{"point":{"type":"object","description":"a point","properties":{"x":{"type":"number"}},"required":["x"]}}}`
	v, err := compileValidator(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		want []Violation
	}{
		{`{"kind":"point","p":{"x":1},"v":"s","tags":["a","b"]}`, nil},
		{`{"kind":"line","p":{}}`, []Violation{
			{"/kind", `expected "point", got "line"`},
			{"/p/x", "required property is missing (number)"},
		}},
		{`{"kind":"point"}`, []Violation{{"/p", "required property is missing (object: a point)"}}},
		{`{"kind":"point","p":{"x":1},"v":true}`, []Violation{{"/v", "expected string or integer or number, got boolean true"}}},
		{`{"kind":"point","p":{"x":1},"v":150}`, []Violation{{"/v", "matches more than one of the allowed shapes (alternatives 2 and 3); got 150"}}},
		{`{"kind":"point","p":{"x":1},"tags":["a","a"]}`, []Violation{{"/tags", "expected unique items, but items 0 and 1 are equal"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, check(t, v, tt.args)); diff != "" {
			t.Errorf("validate(%s) (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestCompileValidatorRefuses(t *testing.T) {
	tests := []struct {
		name, schema, wantPrefix string
	}{
		{"not JSON", `{"type":`, "schema: invalid JSON: "},
		{"unknown type", `{"type":"object","properties":{"a":{"type":"strin"}}}`, "invalid schema: "},
		{"bad pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, "invalid schema: "},
		{"string root", `{"type":"string"}`, "schema root is not an object schema"},
		{"untyped root", `{"properties":{}}`, "schema root is not an object schema"},
		{"nullable root", `{"type":["object","null"]}`, "schema root is not an object schema"},
		{"file reference", `{"type":"object","properties":{"a":{"$ref":"file:///etc/hostname"}}}`, "invalid schema: "},
		{"remote reference", `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`, "invalid schema: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := compileValidator(json.RawMessage(tt.schema))
			if err == nil {
				t.Fatalf("compileValidator(%s) = %v, want an error", tt.schema, v)
			}
			if !strings.HasPrefix(err.Error(), tt.wantPrefix) {
				t.Errorf("compileValidator(%s) error %q, want prefix %q", tt.schema, err, tt.wantPrefix)
			}
		})
	}
}

// libraryValid reports whether santhosh-tekuri/jsonschema, on its own, finds args valid:
// decoded by the library (encoding/json, numbers as json.Number), numbers out of range
// refused as validate refuses them before the library runs.
func libraryValid(v *validator, args string) bool {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return false
	}
	var huge []Violation
	if outOfRange(inst, nil, &huge); huge != nil {
		return false
	}
	return v.schema.Validate(inst) == nil
}

// validationCases are schemas with arguments: valid ones, and others on which validate must
// give the library's verdict.
var validationCases = []struct {
	schema string
	valid  []string // validate accepts these
	others []string // validate agrees with libraryValid on these
}{
	{
		schema: `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city"],"additionalProperties":false}`,
		valid: []string{`{"city":"x","days":3}`, ` { "city" : "x" } `, `{"city":"\u5317\u4eac","days":7}`, `{"days":1,"city":""}`,
			`{"city":"x","days":null}`, `{"city":"x","days":3.0}`, `{"city":"x","days":7e0}`},
		others: []string{`{"city":"x","days":0}`, `{"city":"x","days":8}`, `{"city":"x","days":7.0000000000000000001}`,
			`{"city":"x","days":1e400}`, `{"city":"x","days":-0}`, `{"days":3}`, `{"city":1}`, `{"city":"x","extra":1}`,
			`{"city":"x","days":99999999999999999999}`, `{"c\u0069ty":"x"}`, `{"City":"x"}`,
			// refused by the parse stage, and by the library:
			`{"city":"x"} x`, `{"city":"x",}`, `{"city":"x"`, `{"city":"\x01"}`, "{\"city\":\"\x01\"}", `{"city":"\u12"}`,
			`{"city":"\`, `{"city":"x","days":01}`, `{"city":"x","days":-}`, `{"city":"x","days":1.}`, `[]`, `null`, ``,
			`{"city":"x","city":1}`},
	},
	{
		schema: `{"type":"object","properties":{
			"unit":{"type":"string","enum":["c","f"]},
			"level":{"enum":[1,2.5,"x",null,true]},
			"code":{"type":"string","pattern":"^[A-Z]{3}$","minLength":3,"maxLength":3},
			"mail":{"type":"string","format":"email"},
			"at":{"type":"string","format":"date-time"},
			"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.25},
			"step":{"type":"integer","multipleOf":5},
			"frac":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
			"big":{"type":"number","minimum":-1e300,"maximum":1e300},
			"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2},
			"home":{"anyOf":[{"type":"object","properties":{"street":{"type":"string"}},"required":["street"],"additionalProperties":false},{"type":"null"}]},
			"one":{"oneOf":[{"type":"string"},{"type":"integer","minimum":10}]},
			"k":{"const":"x"},
			"free":{},
			"never":false,
			"ref":{"$ref":"#/$defs/p"}},
			"$defs":{"p":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}}`,
		valid: []string{`{}`, `{"unit":"c","level":2.50,"code":"ABC","mail":"a@b.co","at":"2025-01-31T09:30:00Z","ratio":0.75,"step":-15,
			"tags":["a","b"],"home":{"street":"s"},"one":"s","k":"x","free":{"any":[1,{"x":null}]},"ref":{"x":1.5,"y":[]}}`,
			`{"level":"x"}`, `{"level":null}`, `{"level":true}`, `{"level":1.0}`, `{"home":null}`, `{"one":10}`,
			`{"frac":0.5}`, `{"frac":1e-300}`, `{"frac":0.99999999999999999999}`, `{"big":-1e300}`, `{"big":1E+300}`, `{"big":0.1}`, `{"code":"\u0041BC"}`},
		others: []string{`{"unit":"C"}`, `{"level":false}`, `{"level":3}`, `{"code":"ABCD"}`, `{"code":"abc"}`, `{"mail":"nope"}`,
			`{"at":"2025-13-01T00:00:00Z"}`, `{"ratio":0.3}`, `{"ratio":1}`, `{"step":7}`, `{"step":5.5}`, `{"tags":[]}`,
			`{"tags":["a","b","c"]}`, `{"tags":[1]}`, `{"home":{}}`, `{"home":{"street":"s","x":1}}`, `{"one":9}`, `{"one":true}`,
			`{"k":"y"}`, `{"never":1}`,
			`{"frac":1.00000000000000000001}`, `{"frac":0}`, `{"frac":-0.0}`, `{"frac":-1e-300}`, `{"frac":1e308}`, `{"frac":1e999}`,
			`{"big":1.0000000000000000001e300}`, `{"big":-1.0000000000000000001e300}`, `{"big":1e301}`, `{"ref":{}}`, `{"ref":{"x":"1"}}`, `{"free":{"a":}}`, `{"level":[1]}`, `{"unit":{"c":1}}`},
	},
}

// TestValidateAgreesWithLibrary: on arguments the parse stage lets through, validate gives
// the verdict of the library it is built on.
func TestValidateAgreesWithLibrary(t *testing.T) {
	for i, c := range validationCases {
		v, err := compileValidator(json.RawMessage(c.schema))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for _, args := range c.valid {
			if got := check(t, v, args); got != nil || !libraryValid(v, args) {
				t.Errorf("case %d: validate(%s) = %v, library valid %v; want both valid", i, args, got, libraryValid(v, args))
			}
		}
		for _, args := range c.others {
			if got, lib := check(t, v, args) == nil, libraryValid(v, args); got != lib {
				t.Errorf("case %d: validate(%s) valid = %v, the library says %v", i, args, got, lib)
			}
		}
	}
}

// FuzzValidateAgreesWithLibrary: on any text the parse stage accepts, validate gives the
// library's verdict on the same text.
func FuzzValidateAgreesWithLibrary(f *testing.F) {
	var validators []*validator
	for _, c := range validationCases {
		v, err := compileValidator(json.RawMessage(c.schema))
		if err != nil {
			f.Fatal(err)
		}
		validators = append(validators, v)
		for _, a := range append(c.valid, c.others...) {
			f.Add(a)
		}
	}
	f.Fuzz(func(t *testing.T, args string) {
		tree, _, err := parseArguments([]byte(args), DefaultArgumentLimit)
		if err != nil {
			return // refused before validation: duplicates, invalid UTF-8, too deep, not an object
		}
		for i, v := range validators {
			if got, lib := v.validate(tree) == nil, libraryValid(v, args); got != lib {
				t.Fatalf("schema %d: validate(%q) valid = %v, the library says %v", i, args, got, lib)
			}
		}
	})
}

func TestValidateConcurrently(t *testing.T) {
	v := mustValidator(t, reflect.TypeFor[valArgs](), false)
	good := `{"city":"x","days":3,"items":[{"name":"ab"}]}`
	bad := `{"city":"x","days":9}`
	wantBad := []Violation{{"/days", "expected a number <= 7, got 9"}}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if (g+i)%2 == 0 {
					if got := check(t, v, good); got != nil {
						errs <- fmt.Sprintf("validate(good) = %v", got)
						return
					}
				} else if got := check(t, v, bad); !cmp.Equal(got, wantBad) {
					errs <- fmt.Sprintf("validate(bad) = %v", got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// go test ./tool -run '^$' -bench Validate -benchmem
func BenchmarkValidate(b *testing.B) {
	type in struct {
		City string `json:"city" jsonschema:"description=城市中文名"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=7"`
	}
	v := mustValidator(b, reflect.TypeFor[in](), false)
	args := `{"city":"北京","days":3}`
	b.ReportAllocs()
	for b.Loop() {
		if check(b, v, args) != nil {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkValidateLarge(b *testing.B) {
	v := mustValidator(b, reflect.TypeFor[valArgs](), false)
	args := `{"city":"北京","days":7,"unit":"f","level":2,"code":"PEK","email":"a@b.co","at":"2025-01-31T09:30:00Z",
		"ratio":0.5,"step":-10,"note":"short","items":[{"name":"ab","qty":1},{"name":"cd"}],"home":{"street":"长安街"},"count":0}`
	b.ReportAllocs()
	for b.Loop() {
		if check(b, v, args) != nil {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	type in struct {
		City string `json:"city" jsonschema:"description=城市中文名"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=7"`
	}
	v := mustValidator(b, reflect.TypeFor[in](), false)
	args := `{"city":"北京","days":9}`
	b.ReportAllocs()
	for b.Loop() {
		if check(b, v, args) == nil {
			b.Fatal("valid")
		}
	}
}

// Violations come in the order of the arguments, array indexes by number: when a refusal lists
// only the first of many, they are those of the first elements.
func TestViolationsInIndexOrder(t *testing.T) {
	tl := New("ids", "takes ids", func(_ context.Context, in struct {
		IDs []int `json:"ids" jsonschema:"minimum=0"`
	}) (string, error) {
		return "ok", nil
	})
	args := `{"ids":[` + strings.TrimSuffix(strings.Repeat("-1,", 12), ",") + `]}`
	_, _, err := tl.Arguments(args)
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		t.Fatalf("err %v, want an *ArgumentError", err)
	}
	var paths []string
	for _, v := range ae.Violations {
		paths = append(paths, v.Path)
	}
	want := []string{"/ids/0", "/ids/1", "/ids/2", "/ids/3", "/ids/4", "/ids/5", "/ids/6", "/ids/7", "/ids/8", "/ids/9", "/ids/10", "/ids/11"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("violation paths (-want +got):\n%s", diff)
	}
}
