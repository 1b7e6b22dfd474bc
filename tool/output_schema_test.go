package tool_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/tool"
)

type forecast struct {
	City  string    `json:"city" jsonschema:"description=the city"`
	Temps []float64 `json:"temps"`
	Note  *string   `json:"note,omitempty"`
	Tags  map[string]int
	When  time.Time `json:"when"`
}

// stringer writes itself as a string its struct shape does not describe.
type stringer struct{ A, B int }

func (s stringer) MarshalJSON() ([]byte, error) { return []byte(`"a-b"`), nil }

type withStringer struct {
	S stringer `json:"s"`
}

// textOnly writes itself as text but is not read from text: its shape is not its JSON.
type textOnly struct{ A int }

func (textOnly) MarshalText() ([]byte, error) { return []byte("a"), nil }

type withFunc struct {
	F func() `json:"f"`
}

func outputSchemaOf[Out any](t *testing.T) string {
	t.Helper()
	tl := tool.New("t", "a tool", func(ctx context.Context, in struct{}) (Out, error) {
		var out Out
		return out, nil
	})
	return string(tl.OutputSchema())
}

func TestOutputSchemaReflected(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"struct", outputSchemaOf[forecast](t),
			`{"type":"object","properties":{"city":{"type":"string","description":"the city"},` +
				`"temps":{"anyOf":[{"type":"array","items":{"type":"number"}},{"type":"null"}]},` +
				`"note":{"type":["string","null"]},` +
				`"Tags":{"anyOf":[{"type":"object","additionalProperties":{"type":"integer"}},{"type":"null"}]},` +
				`"when":{"type":"string","format":"date-time"}},"required":["city","temps","Tags","when"],"additionalProperties":false}`},
		{"pointer to struct", outputSchemaOf[*struct {
			N int `json:"n"`
		}](t), `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`},
		{"string", outputSchemaOf[string](t), ``},
		{"slice", outputSchemaOf[[]forecast](t), ``},
		{"map", outputSchemaOf[map[string]any](t), ``},
		{"any", outputSchemaOf[any](t), ``},
		{"marshals itself", outputSchemaOf[withStringer](t), ``},
		{"cannot be described", outputSchemaOf[withFunc](t), ``},
		{"text both ways is a string", outputSchemaOf[struct {
			Addr netip.Addr    `json:"addr"`
			D    time.Duration `json:"d"`
		}](t), `{"type":"object","properties":{"addr":{"type":"string"},"d":{"type":"integer"}},"required":["addr","d"],"additionalProperties":false}`},
		{"text one way", outputSchemaOf[struct {
			T textOnly `json:"t"`
		}](t), ``},
		{"raw message field", outputSchemaOf[struct {
			R json.RawMessage `json:"r"`
		}](t), ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("OutputSchema (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStructuredOutputValidates(t *testing.T) {
	note := "windy"
	tl := tool.New("forecast", "a forecast", func(ctx context.Context, in struct{}) (forecast, error) {
		return forecast{}, nil
	})
	tests := []struct {
		name    string
		value   any
		want    string
		wantErr string
	}{
		{"zero value, nil slice and map", forecast{}, `{"city":"","temps":null,"Tags":null,"when":"0001-01-01T00:00:00Z"}`, ""},
		{"full", forecast{City: "北京", Temps: []float64{1.5}, Note: &note, Tags: map[string]int{"a": 1}},
			`{"city":"北京","temps":[1.5],"note":"windy","Tags":{"a":1},"when":"0001-01-01T00:00:00Z"}`, ""},
		{"nil pointer is the zero value", (*forecast)(nil), `{"city":"","temps":null,"Tags":null,"when":"0001-01-01T00:00:00Z"}`, ""},
		{"wrong shape", map[string]int{"city": 1}, "", "tool forecast: the output does not match its output schema"},
		{"not JSON", func() {}, "", "tool forecast: the output could not be encoded as JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tl.StructuredOutput(tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestStructuredOutputWithoutSchema(t *testing.T) {
	tl := tool.New("echo", "echoes", func(ctx context.Context, in struct{}) (string, error) { return "x", nil })
	got, err := tl.StructuredOutput("x")
	if got != nil || err != nil {
		t.Errorf("StructuredOutput = %s, %v; want nil, nil", got, err)
	}
}

func TestOutputSchemaOption(t *testing.T) {
	schema := json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}`)
	raw, err := tool.Raw("raw", "a raw tool", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, args json.RawMessage) (any, error) { return map[string]int{"n": 1}, nil },
		tool.Options{OutputSchema: schema})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw.OutputSchema()), `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`; got != want {
		t.Errorf("OutputSchema = %s, want %s", got, want)
	}
	if _, err := raw.StructuredOutput(map[string]string{"n": "one"}); err == nil {
		t.Error("StructuredOutput accepted a string for an integer")
	}
	plain, err := tool.Raw("raw", "a raw tool", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, args json.RawMessage) (any, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if plain.OutputSchema() != nil {
		t.Errorf("a Raw tool without Options.OutputSchema has output schema %s", plain.OutputSchema())
	}
	if _, err := tool.Raw("raw", "a raw tool", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, args json.RawMessage) (any, error) { return nil, nil },
		tool.Options{OutputSchema: json.RawMessage(`{"type": 5}`)}); err == nil {
		t.Error("Raw accepted an invalid output schema")
	}
	overridden := tool.New("n", "a tool", func(ctx context.Context, in struct{}) (forecast, error) { return forecast{}, nil },
		tool.Options{OutputSchema: json.RawMessage(`{"type":"object"}`)})
	if got := string(overridden.OutputSchema()); got != `{"type":"object"}` {
		t.Errorf("New's OutputSchema option: got %s", got)
	}
}
