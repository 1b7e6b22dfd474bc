package tool

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/invopop/jsonschema"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/schema")

// Shapes for the golden schema tests.
type (
	schTags struct {
		City     string   `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
		Note     string   `json:"note" jsonschema:"description=free text\\, up to a line"`
		Comment  string   `json:"comment" jsonschema_description:"a comment, any length, <b>markup</b> kept"`
		Unit     string   `json:"unit" jsonschema:"enum=c,enum=f,default=c"`
		Level    int      `json:"level" jsonschema:"enum=1,enum=2,enum=3"`
		Days     int      `json:"days" jsonschema:"minimum=1,maximum=7,default=3"`
		Ratio    float64  `json:"ratio" jsonschema:"exclusiveMinimum=0,exclusiveMaximum=1"`
		Code     string   `json:"code" jsonschema:"pattern=^[A-Z]{3}$"`
		Email    string   `json:"email" jsonschema:"format=email"`
		At       string   `json:"at" jsonschema:"format=date-time"`
		Link     string   `json:"link" jsonschema:"format=uri"`
		Name     string   `json:"name" jsonschema:"minLength=2,maxLength=20,title=Name"`
		Tags     []string `json:"tags" jsonschema:"minItems=1,maxItems=5"`
		Disabled bool     `json:"disabled" jsonschema:"default=false"`
	}

	schAddress struct {
		Street string `json:"street"`
		Zip    string `json:"zip,omitempty"`
	}
	schNested struct {
		Home     schAddress       `json:"home"`
		Others   []schAddress     `json:"others"`
		Counts   map[string]int   `json:"counts"`
		Limit    *int             `json:"limit"`
		Since    time.Time        `json:"since"`
		Until    *time.Time       `json:"until,omitempty"`
		Matrix   [][]float64      `json:"matrix"`
		Pair     [2]string        `json:"pair"`
		ByID     map[int]string   `json:"by_id"`
		Optional *schAddress      `json:"optional"`
		Named    map[string][]int `json:"named,omitempty"`
	}

	SchBase struct {
		ID      string `json:"id" jsonschema:"description=the record id"`
		Version int    `json:"version,omitempty"`
	}
	schMore struct {
		Extra string `json:"extra"`
	}
	schEmbedded struct {
		*SchBase
		schMore
		Title    string  `json:"title"`
		Hidden   string  `json:"-"`
		internal string  //nolint:unused // unexported fields are skipped
		Plain    string  // no json tag: the Go name
		Maybe    string  `json:"maybe,omitempty"`
		Zero     int     `json:"zero,omitzero"`
		Forced   *string `json:"forced" jsonschema:"required"`
		Ignored  string  `json:"ignored" jsonschema:"-"`
	}

	schHiddenInt   int
	schHiddenEmbed struct {
		schHiddenInt     // json/v2 refuses an embedded non-struct type without a JSON name
		X            int `json:"x"`
	}
	schSelfDescribed struct{ Lat, Lng float64 }
	schSpecial       struct {
		Amount   json.Number      `json:"amount"`
		Addr     netip.Addr       `json:"addr"`
		Count    uint16           `json:"count"`
		Blob     []byte           `json:"blob"`
		Point    schSelfDescribed `json:"point"`
		Value    any              `json:"value" jsonschema:"anyof_type=string;integer"`
		Nickname string           `json:"nickname" jsonschema:"nullable"`
		Quoted   int              `json:"quoted,string"`
		Aliased  schAliased       `json:"aliased"`
	}
	schAliased struct{ internal func() }
)

func (schSelfDescribed) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Description: "latitude,longitude", Pattern: `^-?\d+(\.\d+)?,-?\d+(\.\d+)?$`}
}

// JSONSchemaAlias describes schAliased as another type (its own fields cannot be described).
func (schAliased) JSONSchemaAlias() any { return schAddress{} }

func TestReflectSchemaGolden(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
	}{
		{"tags", reflect.TypeFor[schTags]()},
		{"nested", reflect.TypeFor[schNested]()},
		{"embedded", reflect.TypeFor[schEmbedded]()},
		{"special", reflect.TypeFor[schSpecial]()},
		{"empty", reflect.TypeFor[struct{}]()},
		{"pointer_root", reflect.TypeFor[*schAddress]()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reflectSchema(tt.typ)
			if err != nil {
				t.Fatalf("reflectSchema(%v): %v", tt.typ, err)
			}
			if !json.Valid(got) {
				t.Fatalf("reflectSchema(%v) is not JSON: %s", tt.typ, got)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, got, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			file := filepath.Join("testdata", "schema", tt.name+".json")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -run TestReflectSchemaGolden -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
				t.Errorf("reflectSchema(%v) differs from %s (-want +got):\n%s", tt.typ, file, diff)
			}
			// Every reflected schema compiles, and is flat.
			if _, err := compileValidator(got); err != nil {
				t.Errorf("compileValidator: %v", err)
			}
			for _, kw := range [][]byte{[]byte(`"$ref"`), []byte(`"$defs"`), []byte(`"$schema"`), []byte(`"$id"`)} {
				if bytes.Contains(got, kw) {
					t.Errorf("reflected schema contains %s: %s", kw, got)
				}
			}
		})
	}
}

func TestReflectSchemaEmptyStruct(t *testing.T) {
	got, err := reflectSchema(reflect.TypeFor[struct{}]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{},"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestRequiredRule pins the documented rule: required unless omitempty, omitzero or a
// pointer; jsonschema:"required" forces it.
func TestRequiredRule(t *testing.T) {
	type in struct {
		Plain       string   `json:"plain"`
		NoTag       int      // required under its Go name
		OmitEmpty   string   `json:"omit_empty,omitempty"`
		OmitZero    int      `json:"omit_zero,omitzero"`
		Pointer     *int     `json:"pointer"`
		PointerOmit *int     `json:"pointer_omit,omitempty"`
		ForcedPtr   *int     `json:"forced_ptr" jsonschema:"required"`
		ForcedOmit  string   `json:"forced_omit,omitempty" jsonschema:"required"`
		Slice       []string `json:"slice"`
		Map         map[string]string
		Nested      struct {
			Inner    string  `json:"inner"`
			InnerPtr *string `json:"inner_ptr"`
		} `json:"nested"`
	}
	got, err := reflectSchema(reflect.TypeFor[in]())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Required   []string `json:"required"`
		Properties struct {
			Nested struct {
				Required []string `json:"required"`
			} `json:"nested"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	want := []string{"plain", "NoTag", "forced_ptr", "forced_omit", "slice", "Map", "nested"}
	if diff := cmp.Diff(want, s.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"inner"}, s.Properties.Nested.Required); diff != "" {
		t.Errorf("nested required (-want +got):\n%s", diff)
	}
}

// Types the reflection refuses.
type (
	schNode struct {
		Name     string    `json:"name"`
		Children []schNode `json:"children"`
	}
	schList struct {
		Value int      `json:"value"`
		Next  *schList `json:"next"`
	}
	schTree struct {
		Kids map[string]schTree `json:"kids"`
	}
	schA struct {
		B schB `json:"b"`
	}
	schB struct {
		Back []*schA `json:"back"`
	}
	SchSelfEmbed struct {
		*SchSelfEmbed
		X int `json:"x"`
	}
	schCallbackMeta struct {
		Callback func() `json:"callback"`
	}
	schPtrEmbed struct {
		*schMore
	}
	schInline struct {
		Base SchBase `json:",inline"`
	}
	schDecodes struct{ v string }
	schDup     struct {
		SchBase
		ID string `json:"id"`
	}
)

func (d *schDecodes) UnmarshalJSON(b []byte) error { d.v = string(b); return nil }

func TestReflectSchemaRefuses(t *testing.T) {
	tests := []struct {
		name    string
		typ     reflect.Type
		wantErr string
	}{
		{"channel", reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](), `field "C": channel types cannot be described`},
		{"func in nested struct", reflect.TypeFor[struct {
			Meta schCallbackMeta `json:"meta"`
		}](), `field "Meta.Callback": func types cannot be described`},
		{"complex", reflect.TypeFor[struct{ Z complex128 }](), `field "Z": complex number types cannot be described`},
		{"unsafe pointer", reflect.TypeFor[struct{ P unsafe.Pointer }](), `field "P": unsafe.Pointer types cannot be described`},
		{"uintptr", reflect.TypeFor[struct{ U uintptr }](), `field "U": uintptr types cannot be described`},
		{"any", reflect.TypeFor[struct {
			V any `json:"v"`
		}](), `field "V": interface types cannot be described (interface {}): a model cannot be told what to send; use a concrete type`},
		{"interface", reflect.TypeFor[struct{ S interface{ String() string } }](), `field "S": interface types cannot be described (interface { String() string }): a model cannot be told what to send; use a concrete type`},
		{"any in a map", reflect.TypeFor[struct{ Extra map[string]any }](), `field "Extra[]": interface types cannot be described (interface {}): a model cannot be told what to send; use a concrete type`},
		{"func in slice of structs", reflect.TypeFor[struct {
			Items []struct{ Run func() }
		}](), `field "Items[].Run": func types cannot be described`},
		{"direct recursion", reflect.TypeFor[schNode](), `field "Children[]": recursive type tool.schNode cannot be described: break the cycle, or give tool.schNode a JSONSchema method`},
		{"recursion through a pointer", reflect.TypeFor[schList](), `field "Next": recursive type tool.schList cannot be described: break the cycle, or give tool.schList a JSONSchema method`},
		{"recursion through a map", reflect.TypeFor[schTree](), `field "Kids[]": recursive type tool.schTree cannot be described: break the cycle, or give tool.schTree a JSONSchema method`},
		{"recursion through another struct", reflect.TypeFor[struct{ Root schA }](), `field "Root.B.Back[]": recursive type tool.schA cannot be described: break the cycle, or give tool.schA a JSONSchema method`},
		{"recursive embedding", reflect.TypeFor[SchSelfEmbed](), `field "SchSelfEmbed": recursive embedding of tool.SchSelfEmbed cannot be described`},
		{"raw message", reflect.TypeFor[struct{ Raw json.RawMessage }](), `field "Raw": json.RawMessage cannot be described: a model cannot be told what to send; use a concrete type`},
		{"url.URL", reflect.TypeFor[struct{ Link *url.URL }](), "field \"Link\": url.URL does not decode from a JSON string: use a string with a `jsonschema:\"format=uri\"` tag"},
		{"own UnmarshalJSON", reflect.TypeFor[struct{ D schDecodes }](), `field "D": type tool.schDecodes decodes itself (UnmarshalJSON), so its JSON form is unknown: give it a JSONSchema() *jsonschema.Schema method`},
		{"float map key", reflect.TypeFor[struct{ M map[float64]int }](), `field "M": map key type float64 cannot be decoded from a JSON object key`},
		{"embedded pointer to unexported struct", reflect.TypeFor[schPtrEmbed](), `field "schMore": the decoder cannot set an embedded pointer to unexported struct tool.schMore: embed it by value`},
		{"inline option", reflect.TypeFor[schInline](), `field "Base": the json option inline is not supported: embed the struct instead`},
		{"embedded non-struct type", reflect.TypeFor[schHiddenEmbed](), `parameters type: json/v2 cannot decode tool.schHiddenEmbed: embedded Go struct field schHiddenInt of non-struct type must be explicitly given a JSON name`},
		{"duplicate JSON name", reflect.TypeFor[schDup](), `field "ID": JSON name "id" is already used by field "SchBase.ID"`},
		{"string root", reflect.TypeFor[string](), `parameters type string is not a struct: a tool's arguments are a JSON object`},
		{"map root", reflect.TypeFor[map[string]int](), `parameters type map[string]int is not a struct: a tool's arguments are a JSON object`},
		{"slice root", reflect.TypeFor[[]schAddress](), `parameters type []tool.schAddress is not a struct: a tool's arguments are a JSON object`},
		{"time root", reflect.TypeFor[time.Time](), `parameters type time.Time is described as "string", not an object: a tool's arguments are a JSON object`},
		{"nil", nil, `parameters type is nil: a tool's arguments are a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reflectSchema(tt.typ)
			if err == nil {
				t.Fatalf("reflectSchema(%v) = %s, want error %q", tt.typ, got, tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("reflectSchema(%v) error:\n got %s\nwant %s", tt.typ, err, tt.wantErr)
			}
		})
	}
}

// A diamond of types is not recursion, and is checked once per type.
func TestReflectSchemaSharedTypesAreNotRecursion(t *testing.T) {
	type leaf struct {
		V int `json:"v"`
	}
	type mid struct {
		L1 leaf `json:"l1"`
		L2 leaf `json:"l2"`
	}
	type root struct {
		A mid   `json:"a"`
		B mid   `json:"b"`
		C []mid `json:"c"`
	}
	if _, err := reflectSchema(reflect.TypeFor[root]()); err != nil {
		t.Fatal(err)
	}
}

func TestEncodeSchemaKeepsOrderAndDoesNotEscapeHTML(t *testing.T) {
	in := `{"required":["b","a"],"properties":{"b":{"description":"x<y & z","type":"string"},"a":{"enum":[{"z":1,"a":2}],"type":"object"}},"type":"object","x-extra":true}`
	tree, err := parseTree([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := string(encodeSchema(tree))
	want := `{"type":"object","properties":{"b":{"type":"string","description":"x<y & z"},"a":{"type":"object","enum":[{"z":1,"a":2}]}},"required":["b","a"],"x-extra":true}`
	if got != want {
		t.Errorf("encodeSchema:\n got %s\nwant %s", got, want)
	}
}

func TestExampleShape(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"weather",
			`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7},"unit":{"type":"string","enum":["c","f"]}}}`,
			`{"city": "<string>", "days": <integer 1..7>, "unit": "c"|"f"}`},
		{"no parameters", `{"type":"object","properties":{}}`, `{}`},
		{"formats and bounds",
			`{"type":"object","properties":{"at":{"type":"string","format":"date-time"},"n":{"type":"number","exclusiveMinimum":0},"m":{"type":"integer","maximum":9},"ok":{"type":"boolean"}}}`,
			`{"at": "<date-time>", "n": <number > 0>, "m": <integer <= 9>, "ok": true|false}`},
		{"nullable and arrays",
			`{"type":"object","properties":{"tags":{"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]},"note":{"type":["string","null"]}}}`,
			`{"tags": ["<string>", ...]|null, "note": "<string>"|null}`},
		{"map and nesting",
			`{"type":"object","properties":{"counts":{"type":"object","additionalProperties":{"type":"integer"}},"a":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"object","properties":{"d":{"type":"string"}}}}}}}}}`,
			`{"counts": {"<key>": <integer>}, "a": {"b": {"c": {...}}}}`},
		{"ref and const",
			`{"type":"object","properties":{"node":{"$ref":"#/$defs/node"},"kind":{"const":"x"}},"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}}}`,
			`{"node": {"next": {...}}, "kind": "x"}`},
		{"many enum values",
			`{"type":"object","properties":{"d":{"enum":[1,2,3,4,5,6,7,8]}}}`,
			`{"d": 1|2|3|4|5|6|…}`},
		{"not JSON", `{`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exampleShape(json.RawMessage(tt.schema)); got != tt.want {
				t.Errorf("exampleShape:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestExampleShapeOfReflectedSchema(t *testing.T) {
	type in struct {
		City string   `json:"city" jsonschema:"description=城市"`
		Days int      `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
		Unit string   `json:"unit,omitempty" jsonschema:"enum=c,enum=f"`
		Tags []string `json:"tags,omitempty"`
	}
	s, err := reflectSchema(reflect.TypeFor[in]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"city": "<string>", "days": <integer 1..7>, "unit": "c"|"f", "tags": ["<string>", ...]}`
	if got := exampleShape(s); got != want {
		t.Errorf("exampleShape:\n got %s\nwant %s", got, want)
	}
	strict, err := strictSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	want = `{"city": "<string>", "days": <integer 1..7>|null, "unit": "c"|"f"|null, "tags": ["<string>", ...]|null}`
	if got := exampleShape(strict); got != want {
		t.Errorf("exampleShape of the strict schema:\n got %s\nwant %s", got, want)
	}
}

// appendString must decode to what encoding/json's encoding decodes to, without escaping HTML.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "ctl\x00\x1f\n\r\t", "<>&", "中文", "\u2028\u2029", "bad\xffutf8"} {
		got := appendString(nil, s)
		std, _ := json.Marshal(s)
		var gotBack, wantBack string
		if err := json.Unmarshal(got, &gotBack); err != nil {
			t.Errorf("appendString(%q) = %s: not JSON: %v", s, got, err)
			continue
		}
		if err := json.Unmarshal(std, &wantBack); err != nil {
			t.Fatal(err)
		}
		if gotBack != wantBack {
			t.Errorf("appendString(%q) = %s, decodes to %q, want %q", s, got, gotBack, wantBack)
		}
	}
	if got := string(appendString(nil, "<>&")); got != `"<>&"` {
		t.Errorf("appendString(%q) = %s, want no HTML escaping", "<>&", got)
	}
}
