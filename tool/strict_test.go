package tool

import (
	"reflect"
	"testing"
	"time"
)

func TestStrictSchemaOfReflectedTypes(t *testing.T) {
	type address struct {
		Street string `json:"street"`
		Zip    string `json:"zip,omitempty"`
	}
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"optional becomes nullable, every property required",
			reflect.TypeFor[struct {
				City  string  `json:"city" jsonschema:"description=城市"`
				Days  int     `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
				Unit  string  `json:"unit,omitempty" jsonschema:"enum=c,enum=f"`
				Limit *int    `json:"limit"`
				Ratio float64 `json:"ratio,omitzero"`
				On    bool    `json:"on,omitempty"`
			}](),
			`{"type":"object","properties":{` +
				`"city":{"type":"string","description":"城市"},` +
				`"days":{"type":["integer","null"],"minimum":1,"maximum":7},` +
				`"unit":{"type":["string","null"],"enum":["c","f",null]},` +
				`"limit":{"type":["integer","null"]},` +
				`"ratio":{"type":["number","null"]},` +
				`"on":{"type":["boolean","null"]}},` +
				`"required":["city","days","unit","limit","ratio","on"],"additionalProperties":false}`},
		{"nested objects are closed, optional objects and arrays wrapped in anyOf",
			reflect.TypeFor[struct {
				Home   address   `json:"home"`
				Work   *address  `json:"work" jsonschema:"description=office"`
				Others []address `json:"others,omitempty"`
			}](),
			`{"type":"object","properties":{` +
				`"home":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":["string","null"]}},"required":["street","zip"],"additionalProperties":false},` +
				`"work":{"description":"office","anyOf":[{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":["string","null"]}},"required":["street","zip"],"additionalProperties":false},{"type":"null"}]},` +
				`"others":{"anyOf":[{"type":"array","items":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":["string","null"]}},"required":["street","zip"],"additionalProperties":false}},{"type":"null"}]}},` +
				`"required":["home","work","others"],"additionalProperties":false}`},
		{"default and unsupported format move into the description",
			reflect.TypeFor[struct {
				Days int       `json:"days" jsonschema:"default=3,description=how many days"`
				Link string    `json:"link" jsonschema:"format=uri"`
				At   time.Time `json:"at"`
				Mail string    `json:"mail" jsonschema:"format=email,minLength=3,pattern=@"`
				Tags []string  `json:"tags" jsonschema:"minItems=1,maxItems=3,uniqueItems=true"`
			}](),
			`{"type":"object","properties":{` +
				`"days":{"type":"integer","description":"how many days (default: 3)"},` +
				`"link":{"type":"string","description":"(format: uri)"},` +
				`"at":{"type":"string","format":"date-time"},` +
				`"mail":{"type":"string","format":"email","pattern":"@","minLength":3},` +
				`"tags":{"type":"array","description":"(items must be unique)","items":{"type":"string"},"minItems":1,"maxItems":3}},` +
				`"required":["days","link","at","mail","tags"],"additionalProperties":false}`},
		{"nullable tag becomes anyOf",
			reflect.TypeFor[struct {
				Nick string `json:"nick" jsonschema:"nullable"`
			}](),
			`{"type":"object","properties":{"nick":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["nick"],"additionalProperties":false}`},
		{"no parameters",
			reflect.TypeFor[struct{}](),
			`{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema, err := reflectSchema(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			got, err := strictSchema(schema)
			if err != nil {
				t.Fatalf("strictSchema(%s): %v", schema, err)
			}
			if string(got) != tt.want {
				t.Errorf("strictSchema(%s):\n got %s\nwant %s", schema, got, tt.want)
			}
			again, err := strictSchema(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("strictSchema is not idempotent:\nonce  %s\ntwice %s (err %v)", got, again, err)
			}
			if _, err := compileValidator(got); err != nil {
				t.Errorf("the strict schema does not compile: %v", err)
			}
		})
	}
}

func TestStrictSchemaOfUserSchemas(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"open root without properties is a tool without parameters",
			`{"type":"object"}`,
			`{"type":"object","properties":{},"required":[],"additionalProperties":false}`},
		{"annotations and unknown keywords dropped, title kept",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:x","type":"object","title":"T","properties":{"a":{"type":"string","examples":["x"],"readOnly":true,"$comment":"c","x-internal":1}},"required":["a"]}`,
			`{"type":"object","title":"T","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`},
		{"required names not in properties dropped, order of properties kept",
			`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["a","ghost"]}`,
			`{"type":"object","properties":{"z":{"type":["string","null"]},"a":{"type":"integer"}},"required":["z","a"],"additionalProperties":false}`},
		{"oneOf nullable pair becomes anyOf",
			`{"type":"object","properties":{"n":{"oneOf":[{"type":"null"},{"type":"integer"}]}},"required":["n"]}`,
			`{"type":"object","properties":{"n":{"anyOf":[{"type":"null"},{"type":"integer"}]}},"required":["n"],"additionalProperties":false}`},
		{"optional const and ref wrapped, defs made strict",
			`{"type":"object","properties":{"k":{"const":"x","description":"kind"},"p":{"$ref":"#/$defs/point"}},"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number","default":0}},"required":["x"]}}}`,
			`{"type":"object","properties":{"k":{"description":"kind","anyOf":[{"const":"x"},{"type":"null"}]},"p":{"anyOf":[{"$ref":"#/$defs/point"},{"type":"null"}]}},"required":["k","p"],"additionalProperties":false,"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":["number","null"],"description":"(default: 0)"}},"required":["x","y"],"additionalProperties":false}}}`},
		{"recursive schema through $ref is allowed",
			`{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name","children"]}`,
			`{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name","children"],"additionalProperties":false}`},
		{"enum without type",
			`{"type":"object","properties":{"e":{"enum":["a","b"]}}}`,
			`{"type":"object","properties":{"e":{"enum":["a","b",null]}},"required":["e"],"additionalProperties":false}`},
		{"type list gains null",
			`{"type":"object","properties":{"v":{"type":["string","integer"]}}}`,
			`{"type":"object","properties":{"v":{"type":["string","integer","null"]}},"required":["v"],"additionalProperties":false}`},
		{"closed object below the root",
			`{"type":"object","properties":{"o":{"type":"object","additionalProperties":false}},"required":["o"]}`,
			`{"type":"object","properties":{"o":{"type":"object","properties":{},"required":[],"additionalProperties":false}},"required":["o"],"additionalProperties":false}`},
		{"unevaluatedProperties false is additionalProperties false",
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"unevaluatedProperties":false}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictSchema([]byte(tt.in))
			if err != nil {
				t.Fatalf("strictSchema(%s): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("strictSchema(%s):\n got %s\nwant %s", tt.in, got, tt.want)
			}
			again, err := strictSchema(got)
			if err != nil || string(again) != string(got) {
				t.Errorf("strictSchema is not idempotent:\nonce  %s\ntwice %s (err %v)", got, again, err)
			}
			if _, err := compileValidator(got); err != nil {
				t.Errorf("the strict schema does not compile: %v", err)
			}
		})
	}
}

func TestStrictSchemaRefuses(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"map",
			`{"type":"object","properties":{"meta":{"type":"object","additionalProperties":{"type":"integer"}}}}`,
			`property "meta": a map (additionalProperties) cannot be strict: use a struct with fixed fields, or a list of key/value objects`},
		{"map deep inside arrays",
			`{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"labels":{"type":"object","additionalProperties":true}}}}}}`,
			`property "rows[].labels": a map (additionalProperties) cannot be strict: use a struct with fixed fields, or a list of key/value objects`},
		{"open object",
			`{"type":"object","properties":{"any":{"type":"object"}}}`,
			`property "any": an open object (no properties) cannot be strict: give it fixed properties`},
		{"int-keyed map",
			`{"type":"object","properties":{"m":{"type":"object","additionalProperties":false,"patternProperties":{"^[0-9]+$":{"type":"string"}}}}}`,
			`property "m": a map (patternProperties) cannot be strict: use fixed properties`},
		{"open root", `{"type":"object","additionalProperties":true}`,
			`schema root: a map (additionalProperties) cannot be strict: use a struct with fixed fields, or a list of key/value objects`},
		{"anyOf root", `{"anyOf":[{"type":"object"},{"type":"null"}]}`,
			`schema root: anyOf cannot be strict: the root must be a plain object schema`},
		{"string root", `{"type":"string"}`, `schema root: type "string" cannot be strict: the root must be an object`},
		{"array root", `[]`, `schema root: not an object schema`},
		{"not JSON", `{"type":`, `schema: invalid JSON: unexpected end of JSON input`},
		{"allOf", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}}}`,
			`property "a": allOf cannot be strict: merge the schemas`},
		{"oneOf", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`,
			`property "a": oneOf cannot be strict: use anyOf`},
		{"not", `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}`,
			`property "a": not cannot be strict`},
		{"if", `{"type":"object","if":{"type":"object"},"properties":{}}`,
			`schema root: if/then/else cannot be strict`},
		{"array without items", `{"type":"object","properties":{"list":{"type":"array"}}}`,
			`property "list": an array without items cannot be strict: give it an element type`},
		{"tuple", `{"type":"object","properties":{"pt":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}]}}}`,
			`property "pt": a tuple (prefixItems) cannot be strict: use an object`},
		{"untyped property", `{"type":"object","properties":{"x":{"description":"anything"}}}`,
			`property "x": a schema without a type cannot be strict: a model cannot be told what to send`},
		{"boolean property schema", `{"type":"object","properties":{"x":true}}`,
			`property "x": a property schema of true cannot be strict: give it a type`},
		{"remote ref", `{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`,
			`property "x": a remote $ref (https://example.com/s.json) cannot be strict: inline it or put it in $defs`},
		{"map in a definition", `{"type":"object","properties":{},"$defs":{"bag":{"type":"object","additionalProperties":{"type":"string"}}}}`,
			`property "$defs.bag": a map (additionalProperties) cannot be strict: use a struct with fixed fields, or a list of key/value objects`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictSchema([]byte(tt.in))
			if err == nil {
				t.Fatalf("strictSchema(%s) = %s, want error %q", tt.in, got, tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("strictSchema(%s) error:\n got %s\nwant %s", tt.in, err, tt.wantErr)
			}
		})
	}
}

// A reflected map names the Go-visible JSON path of the field.
func TestStrictSchemaRefusesReflectedMap(t *testing.T) {
	type meta struct {
		Labels map[string]string `json:"labels"`
	}
	schema, err := reflectSchema(reflect.TypeFor[struct {
		Meta meta `json:"meta"`
	}]())
	if err != nil {
		t.Fatal(err)
	}
	_, err = strictSchema(schema)
	want := `property "meta.labels": a map (additionalProperties) cannot be strict: use a struct with fixed fields, or a list of key/value objects`
	if err == nil || err.Error() != want {
		t.Errorf("strictSchema error:\n got %v\nwant %s", err, want)
	}
}

func TestStrictSchemaDoesNotChangeItsInput(t *testing.T) {
	in := []byte(`{"type":"object","properties":{"a":{"type":"string","default":"x"}}}`)
	orig := string(in)
	if _, err := strictSchema(in); err != nil {
		t.Fatal(err)
	}
	if string(in) != orig {
		t.Errorf("input changed: %s", in)
	}
}
