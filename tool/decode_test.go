package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// Types that exercise what decoding does beyond plain fields.
type (
	decEmbedded struct {
		Inner string `json:"inner"`
	}
	decText struct{ v string }
	decJSON struct{ v string }
	// decAll is decBase with a json.Number and the string option.
	decAll struct {
		decBase
		Number json.Number `json:"number"`
		Quoted int         `json:"quoted,string"`
	}
	decBase struct {
		decEmbedded
		*decPtrEmbedded
		Name     string          `json:"name"`
		Count    int8            `json:"count"`
		Unsigned uint            `json:"unsigned"`
		Ratio    float32         `json:"ratio"`
		On       bool            `json:"on"`
		Wait     time.Duration   `json:"wait"`
		When     time.Time       `json:"when"`
		Ptr      *string         `json:"ptr"`
		List     []int           `json:"list"`
		Array    [2]string       `json:"array"`
		Map      map[string]int  `json:"map"`
		Any      any             `json:"any"`
		Raw      json.RawMessage `json:"raw"`
		Text     decText         `json:"text"`
		Custom   decJSON         `json:"custom"`
		Bytes    []byte          `json:"bytes"`
		Nested   struct{ A int } `json:"nested"`
		Keyed    map[int]string  `json:"keyed"`
		Ignored  string          `json:"-"`
		Untagged string
		Omit     map[string]string `json:"omit,omitempty"`
	}
	decPtrEmbedded struct {
		Deep string `json:"deep"`
	}
)

func (t *decText) UnmarshalText(b []byte) error {
	if string(b) == "bad" {
		return fmt.Errorf("bad text")
	}
	t.v = "text:" + string(b)
	return nil
}

func (j *decJSON) UnmarshalJSON(b []byte) error {
	j.v = "json:" + string(b)
	return nil
}

// decodeCases are validated arguments (valid JSON objects) and how decodeInto differs from
// encoding/json's Unmarshal on them: "" when it decodes the same value, or fails the same.
// The differences are json/v2's semantics, on purpose: names match exactly (as the
// validator matches them), duplicate names and invalid UTF-8 are errors (the parse stage
// refuses them first), a Go array takes exactly its length.
var decodeCases = []struct{ in, differs string }{
	{`{}`, ""},
	{`{"name":"北京","count":3,"unsigned":7,"ratio":0.5,"on":true}`, ""},
	{`{"NAME":"case","Count":1}`, "names match exactly: NAME and Count are unknown members"},
	{`{"name":"a","name":"b"}`, "duplicate names are an error"},
	{`{"name":"\ud800"}`, "a lone surrogate is an error"},
	{"{\"name\":\"\xff\xfe\"}", "invalid UTF-8 is an error"},
	{`{"count":300}`, ""},       // overflows int8
	{`{"count":-1.5}`, ""},      // not an integer
	{`{"unsigned":-1}`, ""},     // negative into uint
	{`{"ratio":1e40}`, ""},      // overflows float32
	{`{"quoted":"42"}`, ""},     // the string option
	{`{"quoted":42}`, ""},       // the string option, unquoted
	{`{"wait":1500000000}`, ""}, // a Duration is nanoseconds
	{`{"wait":"1s"}`, ""},       // but not text
	{`{"when":"2026-11-30T07:00:00Z"}`, ""},
	{`{"when":"yesterday"}`, ""}, // not RFC 3339
	{`{"ptr":"x","list":[1,2,3],"array":["a","b"]}`, ""},
	{`{"array":["a","b","c"]}`, "a Go array takes exactly its length"},
	{`{"ptr":null,"list":null,"map":null,"name":null}`, ""},
	{`{"map":{"a":1,"b":2},"keyed":{"1":"one"}}`, ""},
	{`{"keyed":{"x":"one"}}`, ""}, // a key that is not an int
	{`{"any":{"a":[1,"x",null,true,1.5]}}`, ""},
	{`{"raw":{"keep":[1,2]},"number":12.50}`, ""},
	{`{"text":"hello","custom":{"x":1}}`, ""},
	{`{"text":"bad"}`, ""},       // UnmarshalText fails
	{`{"text":5}`, ""},           // a number for a TextUnmarshaler
	{`{"bytes":"aGVsbG8="}`, ""}, // base64
	{`{"bytes":"not base64!"}`, ""},
	{`{"nested":{"a":1,"A":2}}`, ""},
	{`{"inner":"promoted","deep":"through a pointer"}`, ""},
	{`{"Ignored":"x","-":"y","Untagged":"z"}`, ""},
	{`{"Untagged":"z","untagged":"w"}`, "names match exactly: untagged is unknown"},
	{`{"unknown":1}`, ""},
	{`{"name":1}`, ""},  // wrong type
	{`{"list":{}}`, ""}, // wrong type
}

func TestDecodeLikeEncodingJSON(t *testing.T) {
	for _, tc := range decodeCases {
		var want, got decAll
		wantErr := json.Unmarshal([]byte(tc.in), &want)
		gotErr := decodeInto([]byte(tc.in), &got)
		same := (gotErr != nil) == (wantErr != nil) && (wantErr != nil || cmp.Equal(want, got, cmp.Exporter(func(reflect.Type) bool { return true })))
		switch {
		case tc.differs == "" && !same:
			t.Errorf("%s: decodeInto = %+v, %v; encoding/json = %+v, %v", tc.in, got, gotErr, want, wantErr)
		case tc.differs != "" && same:
			t.Errorf("%s: decodeInto decodes as encoding/json does; want a difference (%s)", tc.in, tc.differs)
		}
	}
}

// TestDecodeStringOption: with the string option, inside the string only what a JSON number
// may be: "NaN", "Infinity", "+1" and ".5" are errors the model is told about (as in
// encoding/json). (On a string or a bool field the option is refused when the tool is built:
// json/v2's versions read it differently there.)
func TestDecodeStringOption(t *testing.T) {
	type quoted struct {
		Amount float64 `json:"amount,omitempty,string"`
		Count  int     `json:"count,omitempty,string"`
	}
	tl := New("pay", "pays an amount", func(_ context.Context, in quoted) (string, error) {
		return "paid", nil
	})
	for _, tt := range []struct {
		args   string
		refuse bool
	}{
		{`{"amount":"NaN"}`, true}, {`{"amount":"Infinity"}`, true}, {`{"amount":".5"}`, true}, {`{"count":"+1"}`, true},
		{`{"amount":"1.5","count":"42"}`, false},
	} {
		res := tl.Handle(context.Background(), Call{ID: "1", Name: "pay", Arguments: tt.args})
		if got := res.Kind == KindInvalidArguments; got != tt.refuse {
			t.Errorf("%s: got %q %q; want refused %v", tt.args, res.Kind, res.Content, tt.refuse)
		}
	}
}

type (
	fromJSON struct{ A string }
	withFrom struct {
		F fromJSON `json:"f"`
	}
)

func (f *fromJSON) UnmarshalJSONFrom(d *jsontext.Decoder) error { return d.SkipValue() }

// TestNewRefusesWhatTheSchemaCannotDescribe: json tags and methods with which json/v2 would
// decode something else than the reflected schema describes, or nothing at all, are refused
// when the tool is built, naming the field.
func TestNewRefusesWhatTheSchemaCannotDescribe(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"format:units", reflect.TypeFor[struct {
			Timeout time.Duration `json:"timeout,format:units"`
		}](), `field "Timeout": the json option format:units is not supported: the schema cannot describe what it decodes`},
		{"unknown", reflect.TypeFor[struct {
			City string         `json:"city"`
			Rest map[string]int `json:",unknown"`
		}](), `field "Rest": the json option unknown is not supported`},
		{"case:ignore", reflect.TypeFor[struct {
			City string `json:"city,case:ignore"`
		}](), `field "City": the json option case:ignore is not supported`},
		{"string on a bool", reflect.TypeFor[struct {
			On bool `json:"on,string"`
		}](), `field "On": the json option string is not supported on a bool`},
		{"string on a string", reflect.TypeFor[struct {
			Note string `json:"note,string"`
		}](), `field "Note": the json option string is not supported on a string`},
		{"quoted name", reflect.TypeFor[struct {
			A string `json:"'it''s'"`
		}](), `field "A": a quoted JSON name is not supported`},
		{"malformed tag", reflect.TypeFor[struct {
			N string `json:"name,"`
		}](), "Go struct field N has malformed `json` tag"},
		{"dash name", reflect.TypeFor[struct {
			D string `json:"-,"`
		}](), "Go struct field D has malformed `json` tag"},
		{"UnmarshalJSONFrom", reflect.TypeFor[withFrom](), `field "F": type tool.fromJSON decodes itself (UnmarshalJSONFrom)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := reflectSchema(tt.typ)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("reflectSchema(%v) error = %v, want it to contain %q", tt.typ, err, tt.want)
			}
		})
	}
}

// go test ./tool -run '^$' -bench DecodeInto -benchmem
func BenchmarkDecodeInto(b *testing.B) {
	type in struct {
		City string `json:"city"`
	}
	args := []byte(`{"city":"北京"}`)
	b.ReportAllocs()
	for b.Loop() {
		var v in
		if err := decodeInto(args, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// inputUpper is an input type whose own UnmarshalJSON changes what it decodes to: the
// decoder calls it, whatever its fields are.
type inputUpper struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

func (u *inputUpper) UnmarshalJSON(b []byte) error {
	type plain inputUpper
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*u = inputUpper(p)
	u.City = strings.ToUpper(u.City)
	if u.Days == 0 {
		u.Days = 1 // a default
	}
	return nil
}

// inputText is an input type with UnmarshalText: it decodes from a JSON string only, so an
// object is a decode error.
type inputText struct {
	City string `json:"city"`
}

func (t *inputText) UnmarshalText(b []byte) error {
	t.City = "from text: " + string(b)
	return nil
}

// inputSchema describes the inputs above: a type that decodes itself has no reflected
// schema, so it is given one.
var inputSchema = Options{Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}`)}

// TestDecodeHonorsInputMethods: the decoding methods of the input type itself are called,
// for In = T and In = *T.
func TestDecodeHonorsInputMethods(t *testing.T) {
	const args = `{"city":"beijing"}`
	want := inputUpper{City: "BEIJING", Days: 1}
	var gotV, gotP inputUpper
	tv := New("v", "value input", func(_ context.Context, in inputUpper) (string, error) {
		gotV = in
		return "ok", nil
	}, inputSchema)
	tp := New("p", "pointer input", func(_ context.Context, in *inputUpper) (string, error) {
		gotP = *in
		return "ok", nil
	}, inputSchema)
	if res := tv.Handle(context.Background(), Call{ID: "1", Arguments: args}); res.Err != nil {
		t.Fatalf("value input: %v", res.Err)
	}
	if res := tp.Handle(context.Background(), Call{ID: "2", Arguments: args}); res.Err != nil {
		t.Fatalf("pointer input: %v", res.Err)
	}
	if gotV != want || gotP != want {
		t.Errorf("fn got %+v (In = T) and %+v (In = *T), want %+v: the input's UnmarshalJSON must run", gotV, gotP, want)
	}

	ran := false
	tl := New("t", "text input", func(_ context.Context, in inputText) (string, error) {
		ran = true
		return in.City, nil
	}, inputSchema)
	res := tl.Handle(context.Background(), Call{ID: "1", Arguments: `{"city":"x"}`})
	if ran || res.Kind != KindInvalidArguments {
		t.Errorf("text input: fn ran = %v, kind %q; want a decode error (%s): the type decodes from a string only", ran, res.Kind, KindInvalidArguments)
	}
}

// TestDecodeReadsWhatTheSchemaDescribes: a tool whose schema accepts a call must be able to
// run it. The package doc (decode.go) says tags "that would make the decoder read something
// else than the schema describes ... are refused when the tool is built", and ARCH says types
// json/v2 cannot decode as described are refused at construction. Two are not:
//   - a byte array ([N]byte): the reflected schema is an array of N integers (as encoding/json
//     reads it), but json/v2 reads a byte array from a base64 string, so the call the schema
//     describes is refused with "expected a base64 string", and a base64 string is refused by
//     the validator: no call can set the field;
//   - the string option on a slice, map or struct of integers: the schema describes plain
//     integers, json/v2 applies the option to every number inside and wants strings ("1"):
//     {"x":[1,2]} is refused with "expected an integer written without a fraction or exponent
//     (like 1), got 1", and ["1","2"] by the validator.
//
// Either outcome passes: refused when the tool is built, or the schema-valid call runs.
func TestDecodeReadsWhatTheSchemaDescribes(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	run := func(name string, mk func() *Tool, args string) {
		t.Run(name, func(t *testing.T) {
			var tl *Tool
			func() {
				defer func() { recover() }()
				tl = mk()
			}()
			if tl == nil {
				return // refused at construction: fine
			}
			res := tl.Handle(context.Background(), Call{ID: "1", Name: "t", Arguments: args})
			if res.Kind != "" {
				t.Errorf("schema %s\nargs %s: got %q %q; want the call to run, or the tool refused by New", tl.Parameters(), args, res.Kind, res.Content)
			}
		})
	}
	run("byte array", func() *Tool {
		return New("t", "d", func(_ context.Context, in struct {
			Key [4]byte `json:"key"`
		}) (string, error) {
			return fmt.Sprint(in.Key), nil
		})
	}, `{"key":[1,2,3,4]}`)
	run("string option on a slice of ints", func() *Tool {
		return New("t", "d", func(_ context.Context, in struct {
			IDs []int `json:"ids,string"`
		}) (string, error) {
			return fmt.Sprint(in.IDs), nil
		})
	}, `{"ids":[1,2]}`)
	run("string option on a struct", func() *Tool {
		return New("t", "d", func(_ context.Context, in struct {
			S inner `json:"s,string"`
		}) (string, error) {
			return fmt.Sprint(in.S), nil
		})
	}, `{"s":{"n":3}}`)
	run("string option on a map of ints", func() *Tool {
		return New("t", "d", func(_ context.Context, in struct {
			M map[string]int `json:"m,string"`
		}) (string, error) {
			return fmt.Sprint(in.M), nil
		})
	}, `{"m":{"a":1}}`)
}
