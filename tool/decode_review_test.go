package tool_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolcall/toolcall/tool"
)

// reviewUnits carries a json/v2 struct tag option (format:units) that encoding/json ignores:
// encoding/json decodes a time.Duration from a number of nanoseconds whatever the option.
type reviewUnits struct {
	Timeout time.Duration `json:"timeout,format:units"`
}

// TestDecodeIgnoresV2TagOptions: a tool's typed input is decoded with encoding/json's
// semantics, so a json tag option that only encoding/json/v2 knows must change nothing. The
// reflected schema says "integer" (nanoseconds), the model sends 1000, and encoding/json
// decodes it to 1µs; the v2 implementation in v1 mode honors format:units and refuses the
// number.
func TestDecodeIgnoresV2TagOptions(t *testing.T) {
	tl, err := tool.Define("wait", "waits", func(_ context.Context, in reviewUnits) (string, error) {
		return in.Timeout.String(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	args := `{"timeout":1000}`
	var want reviewUnits
	if err := json.Unmarshal([]byte(args), &want); err != nil {
		t.Fatal(err)
	}
	res := tl.Handle(context.Background(), tool.Call{ID: "1", Name: "wait", Arguments: args})
	if res.Kind != "" || res.Content != want.Timeout.String() {
		t.Errorf("got %q %q, want success %q (encoding/json's decoding)", res.Kind, res.Content, want.Timeout)
	}
}

// reviewRest carries the v2 option unknown, which encoding/json ignores: its field is the
// property "Rest" like any other.
type reviewRest struct {
	City string         `json:"city"`
	Rest map[string]int `json:",unknown"`
}

// TestDecodeIgnoresV2UnknownOption: with encoding/json, {"Rest":{"a":1}} fills Rest with
// {"a":1}; v2 treats Rest as the catch-all of unknown members and stores {"Rest":{...}} (or
// fails: the inner value is not an int).
func TestDecodeIgnoresV2UnknownOption(t *testing.T) {
	tl, err := tool.Define("city", "a city", func(_ context.Context, in reviewRest) (map[string]int, error) {
		return in.Rest, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	args := `{"city":"x","Rest":{"a":1}}`
	res := tl.Handle(context.Background(), tool.Call{ID: "1", Name: "city", Arguments: args})
	if res.Kind != "" || res.Content != `{"a":1}` {
		t.Errorf("got %q %q, want success {\"a\":1} (encoding/json's decoding)", res.Kind, res.Content)
	}
}

// reviewFrom has an UnmarshalJSONFrom method (encoding/json/v2's Unmarshaler interface),
// which encoding/json does not know: it decodes the struct field by field.
type reviewFrom struct {
	Name string `json:"name"`
}

func (r *reviewFrom) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	if err := d.SkipValue(); err != nil {
		return err
	}
	r.Name = "from UnmarshalJSONFrom"
	return nil
}

type reviewFromIn struct {
	Who reviewFrom `json:"who"`
}

// TestDecodeIgnoresUnmarshalJSONFrom: encoding/json decodes reviewFrom as a plain
// struct; the v2 implementation calls its UnmarshalJSONFrom method even in v1 mode.
func TestDecodeIgnoresUnmarshalJSONFrom(t *testing.T) {
	tl, err := tool.Define("who", "who", func(_ context.Context, in reviewFromIn) (string, error) {
		return in.Who.Name, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := tl.Handle(context.Background(), tool.Call{ID: "1", Name: "who", Arguments: `{"who":{"name":"ada"}}`})
	if res.Kind != "" || res.Content != "ada" {
		t.Errorf("got %q %q, want success \"ada\" (encoding/json's decoding)", res.Kind, res.Content)
	}
}

// reviewQuoted has numbers and a string sent inside strings (the string option), as payment
// APIs do.
type reviewQuoted struct {
	Amount float64 `json:"amount,omitempty,string"`
	Count  int     `json:"count,omitempty,string"`
	Note   string  `json:"note,omitempty,string"`
}

// TestDecodeStringOption: with the string option, encoding/json accepts inside the
// string only what it would accept unquoted: "NaN", "Infinity", "+1" and ".5" are errors
// the model is told about, and the quoted literal "null" leaves a string field alone. The
// v2 implementation in v1 mode parses the first four (the tool gets NaN, +Inf, 1, 0.5) and
// refuses the last.
func TestDecodeStringOption(t *testing.T) {
	tl, err := tool.Define("pay", "pays an amount", func(_ context.Context, in reviewQuoted) (string, error) {
		return "paid", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{`{"amount":"NaN"}`, `{"amount":"Infinity"}`, `{"amount":".5"}`, `{"count":"+1"}`, `{"note":"null"}`} {
		var v reviewQuoted
		wantErr := json.Unmarshal([]byte(args), &v) != nil
		res := tl.Handle(context.Background(), tool.Call{ID: "1", Name: "pay", Arguments: args})
		if gotErr := res.Kind == tool.KindInvalidArguments; gotErr != wantErr {
			t.Errorf("%s: got %q %q; encoding/json refuses it: %v", args, res.Kind, res.Content, wantErr)
		}
	}
}
