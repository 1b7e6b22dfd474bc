package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// Types that exercise what encoding/json's decoding does beyond plain fields.
type (
	decEmbedded struct {
		Inner string `json:"inner"`
	}
	decText struct{ v string }
	decJSON struct{ v string }
	// decAll is decBase with a json.Number and the string option: encoding/json itself
	// decodes it (decoderFor).
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

var decodeCases = []string{
	`{}`,
	`{"name":"北京","count":3,"unsigned":7,"ratio":0.5,"on":true}`,
	`{"NAME":"case","Count":1}`,       // names match case-insensitively
	`{"name":"a","name":"b"}`,         // duplicate: the last wins
	`{"name":"\ud800"}`,               // a lone surrogate
	"{\"name\":\"\xff\xfe\"}",         // invalid UTF-8
	`{"count":300}`,                   // overflows int8
	`{"count":-1.5}`,                  // not an integer
	`{"unsigned":-1}`,                 // negative into uint
	`{"ratio":1e40}`,                  // overflows float32
	`{"quoted":"42"}`,                 // the string option
	`{"quoted":42}`,                   // the string option, unquoted
	`{"wait":1500000000}`,             // a Duration is nanoseconds
	`{"wait":"1s"}`,                   // not in v1
	`{"when":"2026-11-30T07:00:00Z"}`, // time.Time is RFC 3339
	`{"when":"yesterday"}`,            // not RFC 3339
	`{"ptr":"x","list":[1,2,3],"array":["a","b","c"]}`,
	`{"ptr":null,"list":null,"map":null,"name":null}`,
	`{"map":{"a":1,"b":2},"keyed":{"1":"one"}}`,
	`{"keyed":{"x":"one"}}`, // a key that is not an int
	`{"any":{"a":[1,"x",null,true,1.5]}}`,
	`{"raw":{"keep": [1, 2]},"number":12.50}`,
	`{"text":"hello","custom":{"x":1}}`,
	`{"text":"bad"}`,       // UnmarshalText fails
	`{"text":5}`,           // a number for a TextUnmarshaler
	`{"bytes":"aGVsbG8="}`, // base64
	`{"bytes":"not base64!"}`,
	`{"nested":{"a":1,"A":2}}`,
	`{"inner":"promoted","deep":"through a pointer"}`,
	`{"Ignored":"x","-":"y","Untagged":"z","untagged":"w"}`,
	`{"unknown":1}`,
	`{"name":1}`,     // wrong type
	`{"list":{}}`,    // wrong type
	`{"name":"x"} `,  // trailing space
	`{"name":"x"}{}`, // trailing value
	`{"name":"x",}`,  // invalid JSON
}

// A tool's decoder decodes as encoding/json's Unmarshal does: the same value, and an error
// exactly when encoding/json has one. decAll holds a json.Number, so its decoder is
// encoding/json itself: decBase (decNoNumber) is the same without it.
func TestDecodeIntoLikeEncodingJSON(t *testing.T) {
	for _, in := range decodeCases {
		compareDecode(t, in)
		compareDecodeNoNumber(t, in)
	}
}

type decNoNumber = decBase

func compareDecodeNoNumber(t *testing.T, in string) {
	t.Helper()
	if reflect.ValueOf(decoderFor(reflect.TypeFor[decNoNumber]())).Pointer() != reflect.ValueOf(decodeInto).Pointer() {
		t.Fatal("decNoNumber is not decoded by decodeInto")
	}
	compareDecodeAs[decNoNumber](t, in, decodeInto)
}

type (
	fromJSON    struct{ A string }
	withFrom    struct{ F []fromJSON }
	floatKeys   struct{ M map[float64]int }
	okPunctName struct {
		A string `json:"a-b.c:d"`
	}
	quoteName struct {
		A string `json:"it's"`
	}
	recursive struct {
		Next *recursive
		Name string `json:"name,omitempty"`
		Skip string `json:"-"`
		Dash string `json:"-,"`
		Zero int    `json:",omitzero"`
	}
)

func (f *fromJSON) UnmarshalJSONFrom(*jsontext.Decoder) error { return nil }

func TestDecoderFor(t *testing.T) {
	type withNumber struct {
		M map[string][]*json.Number
	}
	tests := []struct {
		typ reflect.Type
		std bool
	}{
		{reflect.TypeFor[decAll](), true},
		{reflect.TypeFor[withNumber](), true},
		{reflect.TypeFor[decBase](), false},
		{reflect.TypeFor[recursive](), false},
		{reflect.TypeFor[struct{ City string }](), false},
		{reflect.TypeFor[okPunctName](), false},
		{reflect.TypeFor[quoteName](), true},
		{reflect.TypeFor[withFrom](), true},
		{reflect.TypeFor[floatKeys](), true},
		{reflect.TypeFor[map[int]string](), false},
		{reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](), true},
		{reflect.TypeFor[struct {
			D time.Duration `json:"d,format:units"`
		}](), true},
		{reflect.TypeFor[struct {
			Rest map[string]any `json:",unknown"`
		}](), true},
		{reflect.TypeFor[struct {
			In decEmbedded `json:",inline"`
		}](), true},
		{reflect.TypeFor[struct {
			N string `json:"n,case:ignore"`
		}](), true},
	}
	for _, tt := range tests {
		got := reflect.ValueOf(decoderFor(tt.typ)).Pointer() == reflect.ValueOf(json.Unmarshal).Pointer()
		if got != tt.std {
			t.Errorf("%v: encoding/json used = %v, want %v", tt.typ, got, tt.std)
		}
	}
}

func compareDecode(t *testing.T, in string) {
	t.Helper()
	compareDecodeAs[decAll](t, in, decoderFor(reflect.TypeFor[decAll]()))
}

// compareDecodeAs decodes in into a T with decode and with encoding/json's Unmarshal, and
// wants the same error-or-not and, without error, the same value.
func compareDecodeAs[T any](t *testing.T, in string, decode func([]byte, any) error) {
	t.Helper()
	var want, got T
	wantErr := json.Unmarshal([]byte(in), &want)
	gotErr := decode([]byte(in), &got)
	if (gotErr != nil) != (wantErr != nil) {
		t.Errorf("%s: decoder error %v, encoding/json error %v", in, gotErr, wantErr)
		return
	}
	if wantErr != nil {
		return // the partial values after an error differ, and neither is used
	}
	if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Errorf("%s: decoder differs from encoding/json (-want +got):\n%s", in, diff)
	}
}

func FuzzDecodeInto(f *testing.F) {
	for _, c := range decodeCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return // decodeInto only ever sees arguments that passed the validator
		}
		compareDecode(t, in)
		compareDecodeNoNumber(t, in)
	})
}

// go test ./tool -run '^$' -bench DecodeInto -benchmem
func BenchmarkDecodeInto(b *testing.B) {
	type in struct {
		City string `json:"city"`
	}
	args := []byte(`{"city":"北京"}`)
	b.Run("decodeInto", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v in
			if err := decodeInto(args, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v in
			if err := json.Unmarshal(args, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
