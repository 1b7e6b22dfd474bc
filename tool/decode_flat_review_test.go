package tool

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// flatReviewUpper is a struct of plain fields whose own UnmarshalJSON (pointer receiver)
// changes what it decodes to: encoding/json calls it, whatever its fields are.
type flatReviewUpper struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

func (u *flatReviewUpper) UnmarshalJSON(b []byte) error {
	type plain flatReviewUpper
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*u = flatReviewUpper(p)
	u.City = strings.ToUpper(u.City)
	if u.Days == 0 {
		u.Days = 1 // a default
	}
	return nil
}

// flatReviewText is a struct of plain fields with an UnmarshalText method: encoding/json
// refuses to decode a JSON object into it (it only decodes strings with UnmarshalText).
type flatReviewText struct {
	City string `json:"city"`
}

func (t *flatReviewText) UnmarshalText(b []byte) error {
	t.City = "from text: " + string(b)
	return nil
}

// flatReviewSchema describes the inputs above: a type that decodes itself has no reflected
// schema, so it is given one (Options.Schema: "then decoded into the input type with
// encoding/json's semantics").
var flatReviewSchema = Options{Schema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}`)}

// TestFlatDecoderHonorsInputUnmarshalJSON: newFlatDecoder checks the methods of each field's
// type but not those of the input type itself, so a tool whose input struct has its own
// UnmarshalJSON gets its fields filled directly and the method is never called.
func TestFlatDecoderHonorsInputUnmarshalJSON(t *testing.T) {
	const args = `{"city":"beijing"}`
	var want flatReviewUpper
	if err := json.Unmarshal([]byte(args), &want); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got flatReviewUpper) {
		t.Helper()
		if got != want {
			t.Errorf("%s: fn got %+v, want %+v (encoding/json calls the input's UnmarshalJSON)", name, got, want)
		}
	}
	var gotV, gotP flatReviewUpper
	tv := New("v", "value input", func(_ context.Context, in flatReviewUpper) (string, error) {
		gotV = in
		return "ok", nil
	}, flatReviewSchema)
	tp := New("p", "pointer input", func(_ context.Context, in *flatReviewUpper) (string, error) {
		gotP = *in
		return "ok", nil
	}, flatReviewSchema)
	if res := tv.Handle(context.Background(), Call{ID: "1", Arguments: args}); res.Err != nil {
		t.Fatalf("value input: %v", res.Err)
	}
	if res := tp.Handle(context.Background(), Call{ID: "2", Arguments: args}); res.Err != nil {
		t.Fatalf("pointer input: %v", res.Err)
	}
	check("In = T", gotV)
	check("In = *T", gotP)
}

// TestFlatDecoderHonorsInputUnmarshalText: encoding/json refuses an object for a type with
// UnmarshalText (a decode error, KindInvalidArguments); the flat decoder accepts it and runs
// the function.
func TestFlatDecoderHonorsInputUnmarshalText(t *testing.T) {
	const args = `{"city":"x"}`
	var v flatReviewText
	var ute *json.UnmarshalTypeError
	if err := json.Unmarshal([]byte(args), &v); !errors.As(err, &ute) {
		t.Fatalf("encoding/json: err = %v, want an UnmarshalTypeError", err)
	}
	ran := false
	tl := New("t", "text input", func(_ context.Context, in flatReviewText) (string, error) {
		ran = true
		return in.City, nil
	}, flatReviewSchema)
	res := tl.Handle(context.Background(), Call{ID: "1", Arguments: args})
	if ran || res.Kind != KindInvalidArguments {
		t.Errorf("fn ran = %v, kind %q; want a decode error (%s), as encoding/json gives", ran, res.Kind, KindInvalidArguments)
	}
}

// TestNewFlatDecoderRefusesInputMethods: the decoder-level statement of the two tests above.
func TestNewFlatDecoderRefusesInputMethods(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[flatReviewUpper](), reflect.TypeFor[flatReviewText]()} {
		if d := newFlatDecoder(typ); d != nil {
			var v = reflect.New(typ)
			ok := d.decode([]byte(`{"city":"x"}`), v.UnsafePointer())
			t.Errorf("%v has its own decoding method, yet newFlatDecoder returns a decoder (decode answered %v with %+v)", typ, ok, v.Elem().Interface())
		}
	}
}

// flatReviewOdd has names and kinds at the edges of what the flat decoder takes.
type flatReviewOdd struct {
	K    string  `json:"k"`
	Dash string  `json:"-,"`
	Sp   string  `json:"a b"`
	Uni  string  `json:"città"`
	Sym  string  `json:"$x.y"`
	N    named   `json:",omitempty"`
	F32  float32 `json:"f"`
	I    int
	U    uint
	I8   int8
	B    bool
}

// compareFlatAs: when the flat decoder answers for T, encoding/json and the decoder the tool
// used before it (decoderFor) answer the same, without error.
func compareFlatAs[T comparable](t *testing.T, in string) {
	t.Helper()
	d := newFlatDecoder(reflect.TypeFor[T]())
	if d == nil {
		t.Fatalf("%v is not flat", reflect.TypeFor[T]())
	}
	var got, want, old T
	if !d.decode([]byte(in), unsafe.Pointer(&got)) {
		return
	}
	if err := json.Unmarshal([]byte(in), &want); err != nil {
		t.Fatalf("%s: flat decoded what encoding/json refuses: %v", in, err)
	}
	if err := decoderFor(reflect.TypeFor[T]())([]byte(in), &old); err != nil {
		t.Fatalf("%s: flat decoded what decoderFor refuses: %v", in, err)
	}
	if got != want || got != old {
		t.Fatalf("%s: flat %+v, encoding/json %+v, decoderFor %+v", in, got, want, old)
	}
}

func FuzzFlatReview(f *testing.F) {
	for _, c := range []string{
		`{"k":"a","-":"d","a b":"s","città":"c","$x.y":"y","N":"n","f":1.5,"I":-3,"U":3,"I8":-128,"B":true}`,
		`{"K":"kelvin"}`, `{"I":-0,"U":0,"f":-0}`, `{"f":1e-400}`, `{"f":1e39}`, `{"I":0.0}`, `{"I8":1E2}`,
		`{"k":null,"B":null}`, `{"k":"a","k":"b"}`, `{"I":9223372036854775807}`, `{"U":-1}`, "{\t\"k\"\n:\r\"x\" }",
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		compareFlatAs[flatReviewOdd](t, in)
		compareFlatAs[flatAll](t, in)
	})
}
