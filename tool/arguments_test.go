package tool_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/tool"
)

// The value a tool runs with is the value that was validated and the value Tool.Arguments
// shows to middleware: these tests are the parser differentials of issue 13.

type cityIn struct {
	City string `json:"city"`
}

// cityTool returns a tool that answers with the city it ran with.
func cityTool(t *testing.T, opts ...tool.Options) *tool.Tool {
	t.Helper()
	return tool.New("city", "echoes the city", func(_ context.Context, in cityIn) (string, error) {
		return "ran with " + in.City, nil
	}, opts...)
}

func TestArgumentsCaseVariantOfAKnownName(t *testing.T) {
	for name, schema := range map[string]string{
		"additionalProperties true": `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":true}`,
		"no additionalProperties":   `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			tl := cityTool(t, tool.Options{Schema: json.RawMessage(schema)})
			const raw = `{"city":"北京","City":"x"}`
			res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: raw})
			if got, want := res.Content, "ran with 北京"; got != want {
				t.Errorf("Handle(%s) = %q (kind %q), want %q: the tool must run with the validated city", raw, got, res.Kind, want)
			}
			args, _, err := tl.Arguments(raw)
			if err != nil {
				t.Fatalf("Arguments(%s): %v", raw, err)
			}
			var m map[string]string
			if err := json.Unmarshal(args, &m); err != nil || m["city"] != "北京" {
				t.Errorf("Arguments(%s) = %s, want city 北京", raw, args)
			}
		})
	}
}

func TestArgumentsDuplicateNamesRefused(t *testing.T) {
	tests := []struct{ name, raw, want string }{
		{"plain", `{"city":"a","city":"b"}`, `- (arguments): duplicate property "city": send each property once`},
		{"escaped", `{"city":"a","c\u0069ty":"b"}`, `duplicate property "city": send each property once`},
		{"repaired", `{'city': 'a', 'city': 'b',}`, `duplicate property "city": send each property once`},
		{"nested", `{"city":"a","home":{"street":"x","street":"y"}}`, `- /home: duplicate property "street": send each property once`},
	}
	tl := tool.New("city", "a city", func(_ context.Context, in struct {
		City string `json:"city"`
		Home *struct {
			Street string `json:"street"`
		} `json:"home,omitempty"`
	}) (string, error) {
		return in.City, nil
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, _, err := tl.Arguments(tt.raw)
			if err == nil {
				t.Fatalf("Arguments(%s) = %s, want a refusal", tt.raw, args)
			}
			res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: tt.raw})
			if res.Kind != tool.KindInvalidArguments || !strings.Contains(res.Content, tt.want) {
				t.Errorf("Handle(%s) = %q %q, want %q containing %q", tt.raw, res.Kind, res.Content, tool.KindInvalidArguments, tt.want)
			}
		})
	}
}

func TestArgumentsCaseVariantIsUnknown(t *testing.T) {
	tl := cityTool(t)
	res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: `{"City":"北京"}`})
	want := `- /City: unknown property; did you mean "city"?`
	if res.Kind != tool.KindInvalidArguments || !strings.Contains(res.Content, want) {
		t.Errorf("Handle({\"City\":\"北京\"}) = %q %q, want a refusal containing %q", res.Kind, res.Content, want)
	}
}

// TestArgumentsAreCanonical: what Arguments returns is minimal JSON, and exactly what the
// tool decodes.
func TestArgumentsAreCanonical(t *testing.T) {
	tl := cityTool(t)
	tests := []struct{ raw, want string }{
		{` { "city" : "北京" } `, `{"city":"北京"}`},
		{`{"city":"\u5317\u4eac"}`, `{"city":"北京"}`},
		{"```json\n{'city': 'x',}\n```", `{"city":"x"}`},
		{`{"city":"a\/b"}`, `{"city":"a/b"}`},
	}
	for _, tt := range tests {
		got, _, err := tl.Arguments(tt.raw)
		if err != nil || string(got) != tt.want {
			t.Errorf("Arguments(%q) = %s, %v; want %s", tt.raw, got, err, tt.want)
		}
	}
}

func TestArgumentsInvalidUTF8Refused(t *testing.T) {
	tl := cityTool(t)
	for _, raw := range []string{"{\"city\":\"\xff\"}", `{"city":"\ud800"}`} {
		res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: raw})
		if res.Kind != tool.KindInvalidJSON {
			t.Errorf("Handle(%q) = %q %q, want %q", raw, res.Kind, res.Content, tool.KindInvalidJSON)
		}
	}
}

func TestArgumentsDepthAndSizeBounds(t *testing.T) {
	open := tool.Options{Schema: json.RawMessage(`{"type":"object"}`), ArgumentLimit: 32 << 20}
	tl := tool.New("open", "takes anything", func(context.Context, struct{}) (string, error) { return "ran", nil }, open)
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}` }
	tests := []struct{ name, raw, want string }{
		{"10 MB of [", strings.Repeat("[", 10<<20), "expected one JSON object"},
		{"10 MB of [ in an object", `{"a":` + strings.Repeat("[", 10<<20), "deeper than 64 levels"},
		{"valid, 65 levels", deep(64), "deeper than 64 levels"},
		{"valid, 5000 levels", deep(5000), "deeper than 64 levels"},
		{"valid, 5 MB deep", deep(5 << 20), "deeper than 64 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: tt.raw})
			if !res.Failed() || !strings.Contains(res.Content, tt.want) {
				t.Errorf("Handle(%.30q…) = %q %.200q, want a refusal containing %q", tt.raw, res.Kind, res.Content, tt.want)
			}
		})
	}
	if res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: deep(63)}); res.Failed() {
		t.Errorf("Handle(64 levels) = %q %.200q, want success", res.Kind, res.Content)
	}
}

// TestDecodeFailureInSchemaTerms: a value the schema accepts but the Go type cannot hold is
// reported with its JSON pointer in the schema's words, not Go's.
func TestDecodeFailureInSchemaTerms(t *testing.T) {
	type in struct {
		Days  int     `json:"days"`
		Small int8    `json:"small,omitempty"`
		Ratio float32 `json:"ratio,omitempty"`
	}
	tl := tool.New("days", "days", func(_ context.Context, in in) (string, error) { return "ran", nil })
	open := tool.New("open", "a schema that allows more than the type", func(_ context.Context, in struct {
		On   bool     `json:"on"`
		Tags []string `json:"tags"`
	}) (string, error) {
		return "ran", nil
	}, tool.Options{Schema: json.RawMessage(`{"type":"object"}`)})
	for _, tt := range []struct {
		tl        *tool.Tool
		raw, want string
	}{
		{tl, `{"days":1.0}`, `- /days: expected an integer written without a fraction or exponent (like 1), got 1.0`},
		{tl, `{"days":1e2}`, `- /days: expected an integer written without a fraction or exponent (like 100), got 1e2`},
		{tl, `{"days":1,"small":300}`, `- /small: expected an integer from -128 to 127, got 300`},
		{tl, `{"days":1,"ratio":1e40}`, `- /ratio: expected a number a float32 can hold (at most ±3.4e38, and not so small that it rounds to 0), got 1e40`},
		{open, `{"on":"yes"}`, `- /on: expected true or false, got "yes"`},
		{open, `{"tags":{"a":1}}`, `- /tags: expected an array, got {"a":1}`},
	} {
		res := tt.tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: tt.raw})
		if res.Kind != tool.KindInvalidArguments || !strings.Contains(res.Content, tt.want) {
			t.Errorf("Handle(%s) = %q %q, want it to contain %q", tt.raw, res.Kind, res.Content, tt.want)
		}
		if strings.Contains(res.Content, "json:") || strings.Contains(res.Content, "Go ") {
			t.Errorf("Handle(%s) content speaks Go: %q", tt.raw, res.Content)
		}
		if _, _, err := tt.tl.Arguments(tt.raw); err == nil || err.Error() != res.Content {
			t.Errorf("Arguments(%s) error = %v, want Handle's refusal %q", tt.raw, err, res.Content)
		}
	}
}

func TestDefaultsAppliedBeforeTheFunctionRuns(t *testing.T) {
	type in struct {
		City string `json:"city"`
		Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=3"`
		Unit string `json:"unit,omitempty" jsonschema:"enum=c,enum=f,default=c"`
	}
	var got in
	tl := tool.New("forecast", "forecast", func(_ context.Context, v in) (string, error) {
		got = v
		return "ok", nil
	})
	tests := []struct {
		raw  string
		want in
		args string
	}{
		{`{"city":"x"}`, in{"x", 3, "c"}, `{"city":"x","days":3,"unit":"c"}`},
		{`{"city":"x","days":null,"unit":null}`, in{"x", 3, "c"}, `{"city":"x","days":3,"unit":"c"}`},
		{`{"city":"x","days":5,"unit":"f"}`, in{"x", 5, "f"}, `{"city":"x","days":5,"unit":"f"}`},
	}
	for _, tt := range tests {
		got = in{}
		if res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: tt.raw}); res.Failed() {
			t.Fatalf("Handle(%s): %s", tt.raw, res.Content)
		}
		if got != tt.want {
			t.Errorf("Handle(%s): the function ran with %+v, want %+v", tt.raw, got, tt.want)
		}
		if args, _, err := tl.Arguments(tt.raw); err != nil || string(args) != tt.args {
			t.Errorf("Arguments(%s) = %s, %v; want %s", tt.raw, args, err, tt.args)
		}
	}
}

// TestArgumentsNumberRunsAsValidated: the validator compares numbers exactly (math/big), the
// decoder rounds them into a float. A number a float field can hold only as 0 or an infinity
// is refused: 1e-400 would pass exclusiveMinimum 0 and a divide tool would divide by zero.
// (A decimal within a rounding of an exclusive bound, 0.99999999999999999 under
// exclusiveMaximum 1, still rounds onto it, as every JSON reader rounds: see decode.go.)
func TestArgumentsNumberRunsAsValidated(t *testing.T) {
	type positive struct {
		X float64 `json:"x" jsonschema:"exclusiveMinimum=0"`
	}
	type belowOne struct {
		X float64 `json:"x" jsonschema:"exclusiveMaximum=1"`
	}
	tests := []struct {
		name string
		tool func(ran *json.RawMessage) *tool.Tool
		raw  string
	}{
		{"float64 underflow to a forbidden 0", func(ran *json.RawMessage) *tool.Tool {
			return tool.New("div", "divides", func(_ context.Context, in positive) (string, error) {
				*ran, _ = json.Marshal(in)
				return "ran", nil
			})
		}, `{"x":1e-400}`},
		{"float64 overflow", func(ran *json.RawMessage) *tool.Tool {
			return tool.New("big", "big", func(_ context.Context, in belowOne) (string, error) {
				*ran, _ = json.Marshal(in)
				return "ran", nil
			})
		}, `{"x":-1e400}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran json.RawMessage
			tl := tt.tool(&ran)
			res := tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: tt.raw})
			if res.Failed() {
				return // refused: the function did not run with another value
			}
			args, _, _ := tl.Arguments(tt.raw)
			if got, want := string(ran), string(args); got != want {
				t.Errorf("Handle(%s): the function ran with %s, re-encoded; want the validated %s (or a refusal)", tt.raw, got, want)
			}
		})
	}
}

// TestDecodeFailureOfKeysAndBytesInSchemaTerms: a decode failure is reported "in the
// schema's terms" (issue 14 #9) so the model can fix its call. For a []byte the schema says
// {"type":"string","contentEncoding":"base64"}, yet the model is told "expected an array"
// (and an array is then refused by the schema); for a map with integer keys the key is at
// fault, yet the message says the *value* ("got \"x\"") should be an integer.
func TestDecodeFailureOfKeysAndBytesInSchemaTerms(t *testing.T) {
	type bytesIn struct {
		B []byte `json:"b"`
	}
	type intKeys struct {
		M map[int]string `json:"m"`
	}
	type int8Keys struct {
		M map[int8]string `json:"m"`
	}
	bytesTool := tool.New("b", "bytes", func(_ context.Context, in bytesIn) (string, error) { return "ran", nil })
	intTool := tool.New("m", "int keys", func(_ context.Context, in intKeys) (string, error) { return "ran", nil })
	int8Tool := tool.New("m8", "int8 keys", func(_ context.Context, in int8Keys) (string, error) { return "ran", nil })
	tests := []struct {
		name      string
		tl        *tool.Tool
		raw       string
		want, bad string // the message must contain want and must not contain bad
	}{
		{"bytes not base64", bytesTool, `{"b":"not base64!"}`, "base64", "expected an array"},
		{"int key with a leading zero", intTool, `{"m":{"01":"x"}}`, "", `got "x"`},
		{"int8 key out of range", int8Tool, `{"m":{"300":"x"}}`, "", `got "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.tl.Handle(context.Background(), tool.Call{ID: "1", Arguments: tt.raw})
			if res.Kind != tool.KindInvalidArguments {
				t.Fatalf("Handle(%s) kind %q, want %q", tt.raw, res.Kind, tool.KindInvalidArguments)
			}
			if got := res.Content; !strings.Contains(got, tt.want) || strings.Contains(got, tt.bad) {
				t.Errorf("Handle(%s) = %q; want a message that says %q and not %q", tt.raw, got, tt.want, tt.bad)
			}
		})
	}
}

// TestArgumentErrorIsBounded: a refusal is a tool message the model reads, and the message
// must be one it can act on. Nothing bounds the violations an ArgumentError lists: 60 KB of
// unknown properties (within DefaultArgumentLimit) come back as a 310 KB message of 6,000
// lines, five times the text the model sent, into its context window. (agentkit's
// HistoryError caps its rendering at 20 problems "and N more" for the same reason.)
func TestArgumentErrorIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"city":"x"`)
	for i := 0; b.Len() < 60_000; i++ {
		b.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	raw := b.String()
	res := cityTool(t).Handle(context.Background(), tool.Call{ID: "1", Arguments: raw})
	if res.Kind != tool.KindInvalidArguments {
		t.Fatalf("kind %q, want %q", res.Kind, tool.KindInvalidArguments)
	}
	const max = 8 << 10
	if got := len(res.Content); got > max {
		t.Errorf("the refusal of %d bytes of arguments is %d bytes (%d lines); want at most %d", len(raw), got, strings.Count(res.Content, "\n"), max)
	}
}
