package tool

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

type (
	flatAll struct {
		City    string        `json:"city"`
		Days    int           `json:"days,omitempty"`
		Small   int8          `json:"small"`
		Mid     int16         `json:"mid"`
		Wide    int32         `json:"wide"`
		Big     int64         `json:"big"`
		Count   uint          `json:"count"`
		Byte    uint8         `json:"byte"`
		U16     uint16        `json:"u16"`
		U32     uint32        `json:"u32"`
		U64     uint64        `json:"u64"`
		Ratio   float32       `json:"ratio"`
		Price   float64       `json:"price,omitzero"`
		On      bool          `json:"on"`
		Wait    time.Duration `json:"wait"`
		Note    named         `json:"note"`
		Untag   string
		Skip    string `json:"-"`
		private string //nolint:unused // never decoded
	}
	named string
)

var flatCases = []string{
	`{}`,
	` { "city" : "北京" , "days" : 3 } `,
	`{"city":"x","days":-2,"small":-128,"mid":32767,"wide":-2147483648,"big":9223372036854775807}`,
	`{"count":18446744073709551615,"byte":255,"u16":65535,"u32":4294967295,"u64":0}`,
	`{"ratio":3.4e38,"price":-0,"on":true,"wait":1500000000,"note":"n","Untag":"u"}`,
	`{"small":128}`, `{"byte":-1}`, `{"days":1.5}`, `{"days":1e2}`, `{"ratio":1e39}`, // out of range
	`{"city":null,"days":null,"on":null}`,
	`{"city":"a","city":"b"}`,       // the last wins
	`{"City":"case"}`,               // not exact: encoding/json matches it anyway
	`{"untag":"lower"}`,             // the field name, another case
	`{"Skip":"x","private":"y"}`,    // never decoded
	`{"city":"esc\"aped","days":2}`, // an escape
	`{"city":1}`, `{"on":"true"}`, `{"days":"3"}`, `{"city":["x"]}`, `{"city":{"a":1}}`,
	`{"unknown":1,"city":"x"}`,
	"{\"city\":\"\xff\"}", // invalid UTF-8
}

// compareFlat decodes in with the flat decoder and with encoding/json: when the flat decoder
// answers, it answers as encoding/json does.
func compareFlat(t *testing.T, in string) (answered bool) {
	t.Helper()
	d := newFlatDecoder(reflect.TypeFor[flatAll]())
	if d == nil {
		t.Fatal("flatAll is not flat")
	}
	var got, want flatAll
	ok := d.decode([]byte(in), unsafe.Pointer(&got))
	if !ok {
		return false
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Errorf("%s: the flat decoder decoded what encoding/json refuses: %v", in, err)
		return true
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(flatAll{})); diff != "" {
		t.Errorf("%s: the flat decoder differs from encoding/json (-want +got):\n%s", in, diff)
	}
	return true
}

func TestFlatDecoder(t *testing.T) {
	answered := 0
	for _, in := range flatCases {
		if compareFlat(t, in) {
			answered++
		}
	}
	if answered < 6 {
		t.Errorf("the flat decoder answered %d of the cases: its fast path is not taken", answered)
	}
}

func TestNewFlatDecoder(t *testing.T) {
	type inner struct{ A string }
	tests := []struct {
		typ  reflect.Type
		flat bool
	}{
		{reflect.TypeFor[flatAll](), true},
		{reflect.TypeFor[struct{ City string }](), true},
		{reflect.TypeFor[struct{}](), true},
		{reflect.TypeFor[string](), false},
		{reflect.TypeFor[struct{ inner }](), false},
		{reflect.TypeFor[struct{ In inner }](), false},
		{reflect.TypeFor[struct{ P *string }](), false},
		{reflect.TypeFor[struct{ L []string }](), false},
		{reflect.TypeFor[struct{ N json.Number }](), false},
		{reflect.TypeFor[struct{ T time.Time }](), false},
		{reflect.TypeFor[struct{ T decText }](), false},
		{reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](), false},
		{reflect.TypeFor[struct {
			A string `json:"x"`
			B string `json:"X"`
		}](), false},
	}
	for _, tt := range tests {
		if got := newFlatDecoder(tt.typ) != nil; got != tt.flat {
			t.Errorf("%v: flat = %v, want %v", tt.typ, got, tt.flat)
		}
	}
}

func FuzzFlatDecoder(f *testing.F) {
	for _, c := range flatCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return // the decoder only sees arguments that passed the validator
		}
		compareFlat(t, in)
	})
}
