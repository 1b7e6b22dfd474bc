package recording

import (
	"github.com/toolcall/toolcall/internal/shared"

	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseYAML(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"scalars", "a: 1\nb: -2.5e3\nc: null\nd: true\ne: 1.5s\nf: '007'\ng: \"x\\ty\\u00e9\"\nh: ''\ni: ~\n",
			map[string]any{"a": json.Number("1"), "b": json.Number("-2.5e3"), "c": nil, "d": true, "e": "1.5s", "f": "007", "g": "x\tyé", "h": "", "i": nil}},
		{"compact sequence under its key", "k:\n- a\n- b: 1\n  c: 2\nz: 3\n",
			map[string]any{"k": []any{"a", map[string]any{"b": json.Number("1"), "c": json.Number("2")}}, "z": json.Number("3")}},
		{"indented sequence and nesting", "k:\n  - - x\n    - y\n  -\n    m: n\n",
			map[string]any{"k": []any{[]any{"x", "y"}, map[string]any{"m": "n"}}}},
		{"empty flow collections and JSON flow", "a: []\nb: {}\nc: [1, \"x\"]\n",
			map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{json.Number("1"), "x"}}},
		{"plain scalar folded over lines", "- content: Please call the tool; on the\n    second try: use valid args\n  role: user\n",
			[]any{map[string]any{"content": "Please call the tool; on the second try: use valid args", "role": "user"}}},
		{"plain scalar with an empty line", "a: one\n  two\n\n  three\nb: x\n",
			map[string]any{"a": "one two\nthree", "b": "x"}},
		{"single-quoted over lines", "m: 'failed: errors: [missing ''name'', and\n    ''foo'' not allowed]'\n",
			map[string]any{"m": "failed: errors: [missing 'name', and 'foo' not allowed]"}},
		{"single-quoted with an empty line", "m: 'a  \n\n   b'\n", map[string]any{"m": "a\nb"}},
		{"double-quoted with escaped line break", "m: \"ab\\\n   cd\"\n", map[string]any{"m": "abcd"}},
		{"literal clip", "a: |\n  x\n   y\n\n\nb: 1\n", map[string]any{"a": "x\n y\n", "b": json.Number("1")}},
		{"literal strip", "a: |-\n  x\n\n  ```\n\n  Fix it.\nb: 1\n", map[string]any{"a": "x\n\n```\n\nFix it.", "b": json.Number("1")}},
		{"literal keep", "a: |+\n  data: 1\n\n  data: [DONE]\n\nb: 1\n", map[string]any{"a": "data: 1\n\ndata: [DONE]\n\n", "b": json.Number("1")}},
		{"literal keeps comment-like lines and colons", "a: |\n  # not a comment\n  k: v\n", map[string]any{"a": "# not a comment\nk: v\n"}},
		{"literal with indentation digit", "a: |2\n    x\n  y\n", map[string]any{"a": "  x\ny\n"}},
		{"document marker and comments", "---\n# c\nversion: 2\n", map[string]any{"version": json.Number("2")}},
		{"sequence item literal", "- |-\n  a\n  b\n- c\n", []any{"a\nb", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseYAML([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseYAML: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseYAML (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseYAMLRefuses(t *testing.T) {
	for _, in := range []string{
		"a: >\n  folded\n",
		"a: &x 1\n",
		"a: 'open\n",
		"a: 1\na: 2\n",
		"a:\n  b: 1\n c: 2\n",
		"a: [unclosed\n",
	} {
		if v, err := ParseYAML([]byte(in)); err == nil {
			t.Errorf("ParseYAML(%q) = %#v, want an error", in, v)
		}
	}
}

func TestParseHTTPRR(t *testing.T) {
	req := "POST https://api.example.com/v1/chat/completions HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}"
	resp := "HTTP/2.0 404 Not Found\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\n{\"a\"}"
	data := "httprr trace v1\n" + strconv.Itoa(len(req)) + " " + strconv.Itoa(len(resp)) + "\n" + req + resp
	got, err := ParseHTTPRR([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []Exchange{{Method: "POST", URL: "https://api.example.com/v1/chat/completions", Request: []byte("{}"),
		Status: 404, ContentType: "application/json", Response: []byte(`{"a"}`)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseHTTPRR (-want +got):\n%s", diff)
	}
	if _, err := ParseHTTPRR([]byte(data[:len(data)-1])); err == nil {
		t.Error("ParseHTTPRR of a truncated trace: no error")
	}
}

// TestLoadRecordings reads every recording of ../shared/recordings and checks what the
// replay tests rely on, including values read back from each YAML construct they use.
func TestLoadRecordings(t *testing.T) {
	dir := shared.Dir(t, "recordings")
	files, err := Files(dir)
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings in %s: %v", dir, err)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		t.Run(rel, func(t *testing.T) {
			xs, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(xs) == 0 {
				t.Fatal("no exchanges")
			}
			for i, x := range xs {
				if !x.ChatCompletion() {
					continue
				}
				if x.Request != nil && !json.Valid(x.Request) {
					t.Errorf("exchange %d: request body is not JSON: %.100s", i, x.Request)
				}
				switch {
				case x.Stream():
					if !strings.HasPrefix(string(x.Response), "data: ") || !strings.HasSuffix(string(x.Response), "data: [DONE]\n\n") {
						t.Errorf("exchange %d: SSE body does not run from data: to [DONE]\\n\\n: %.60q ... %q", i, x.Response, tail(x.Response))
					}
				case !json.Valid(x.Response):
					t.Errorf("exchange %d: response body is not JSON: %.100s", i, x.Response)
				}
				if x.Status == 0 {
					t.Errorf("exchange %d: no status", i)
				}
			}
		})
	}

	// Spot checks of values that only a correct reading gives.
	spot := []struct {
		file     string
		exchange int
		request  bool
		path     []any
		want     any
	}{
		{"pydantic-ai-vcrpy/groq_tool_use_failed_400.yaml", 0, false, []any{"error", "message"},
			"Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'foo' not allowed]"},
		{"pydantic-ai-vcrpy/groq_tool_use_failed_400.yaml", 0, true, []any{"messages", 1, "content"},
			`Please call the "get_something_by_name" tool with non-existent parameters to test error handling; on the second try you can use valid args`},
		{"pydantic-ai-vcrpy/groq_tool_use_failed_400.yaml", 0, false, []any{"error", "failed_generation"},
			"{\"name\": \"get_something_by_name\", \"arguments\": {\n  \"foo\": \"bar\"\n}}"},
		{"pydantic-ai-vcrpy/groq_tool_use_failed_400.yaml", 1, true, []any{"messages", 3, "content"},
			"2 validation errors:\n```json\n[\n  {\n    \"type\": \"missing\",\n    \"loc\": [\n      \"name\"\n    ],\n    \"msg\": \"Field required\",\n    \"input\": {\n      \"foo\": \"bar\"\n    }\n  },\n  {\n    \"type\": \"extra_forbidden\",\n    \"loc\": [\n      \"foo\"\n    ],\n    \"msg\": \"Extra inputs are not permitted\",\n    \"input\": \"bar\"\n  }\n]\n```\n\nFix the errors and try again."},
		{"pydantic-ai-vcrpy/openai_gpt-4o-mini_multi_agent_tool_calls.yaml", 2, true, []any{"messages", 3, "content"},
			"The capital of France is Paris.\n"},
		{"pydantic-ai-vcrpy/gemini_openai_compat_tool_call.yaml", 0, false, []any{"choices", 0, "message", "tool_calls", 0, "id"}, ""},
		{"pydantic-ai-vcrpy/gemini_openai_compat_tool_call.yaml", 0, false, []any{"usage", "total_tokens"}, 109.0},
		{"fantasy-govcr/OpenAICommon__openai-gpt-4o-mini__tool.yaml", 0, true, []any{"messages", 1, "content"},
			"What's the weather in Florence,Italy?"},
	}
	for _, s := range spot {
		xs, err := Load(filepath.Join(dir, s.file))
		if err != nil {
			t.Fatal(err)
		}
		b := xs[s.exchange].Response
		if s.request {
			b = xs[s.exchange].Request
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", s.file, err)
		}
		for _, k := range s.path {
			switch k := k.(type) {
			case string:
				v = v.(map[string]any)[k]
			case int:
				v = v.([]any)[k]
			}
		}
		if diff := cmp.Diff(s.want, v); diff != "" {
			t.Errorf("%s exchange %d %v (-want +got):\n%s", s.file, s.exchange, s.path, diff)
		}
	}
}

func tail(b []byte) string {
	if len(b) > 20 {
		b = b[len(b)-20:]
	}
	return string(b)
}
