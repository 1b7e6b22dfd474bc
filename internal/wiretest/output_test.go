package wiretest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// wireForecast is the typed answer of the output tests.
type wireForecast struct {
	City  string   `json:"city" jsonschema:"description=城市中文名"`
	TempC int      `json:"temp_c" jsonschema:"minimum=-90,maximum=60"`
	Sky   string   `json:"sky" jsonschema:"enum=sunny,enum=cloudy,enum=rain"`
	Tags  []string `json:"tags,omitempty"`
}

// A typed answer over the wire, in each mode, after a tool call: response_format
// json_schema reaches the server (the fixtures match only when it does) and passes OpenAI's
// request schema, strict; the output tool's call ends the run; a prompt-mode answer that
// breaks the schema is sent back as a user message with its violations, and the corrected
// one (in a markdown fence) is repaired. Every request passes the OpenAPI request schema
// (newEnv checks).
func TestTypedOutput(t *testing.T) {
	t.Parallel()
	eachClient(t, "output.json", clientOptions{}, testTypedOutput)
}

func testTypedOutput(t *testing.T, e *env) {
	tests := []struct {
		mode      agentkit.OutputMode
		input     string
		stream    bool
		want      wireForecast
		wantCalls []string
		requests  int
	}{
		{agentkit.OutputNative, "结构化天气（原生）：北京", false, wireForecast{"北京", 26, "sunny", []string{"东南风", "干燥"}}, []string{"北京"}, 2},
		{agentkit.OutputNative, "结构化天气（原生）：北京，流式", true, wireForecast{"北京", 26, "sunny", []string{"东南风", "干燥"}}, []string{"北京"}, 2},
		{agentkit.OutputTool, "结构化天气（工具）：北京", false, wireForecast{City: "北京", TempC: 26, Sky: "sunny"}, []string{"北京"}, 2},
		{agentkit.OutputPrompt, "结构化天气（提示）：北京", false, wireForecast{City: "北京", TempC: 26, Sky: "sunny"}, nil, 2},
	}
	for _, tt := range tests {
		w := &weather{}
		from := len(e.capture.Exchanges())
		model := e.model
		if tt.stream {
			model = e.streaming
		}
		agent := agentkit.New(model, &agentkit.Options{
			Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()},
			Output: agentkit.Output[wireForecast](&agentkit.OutputOptions{Mode: tt.mode, Strict: tt.mode == agentkit.OutputNative}),
		})
		var res *agentkit.Result
		var err error
		partials := 0
		if tt.stream {
			run := agent.RunStream(testContext(t), tt.input)
			for ev := range run.Events() {
				if ev.Kind == agentkit.EventOutputPartial {
					partials++
				}
			}
			res, err = run.Result()
		} else {
			res, err = agent.Run(testContext(t), tt.input)
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.input, err)
		}
		got, ok := agentkit.ValueOf[wireForecast](res)
		if diff := cmp.Diff(tt.want, got); !ok || diff != "" {
			t.Errorf("%s: value (-want +got):\n%s", tt.input, diff)
		}
		if !cmp.Equal(w.calls(), tt.wantCalls) {
			t.Errorf("%s: weather calls %v, want %v", tt.input, w.calls(), tt.wantCalls)
		}
		if tt.stream && partials == 0 {
			t.Errorf("%s: no EventOutputPartial in a streamed run", tt.input)
		}
		exs := e.capture.Exchanges()[from:]
		if len(exs) != tt.requests {
			t.Fatalf("%s: %d requests, want %d", tt.input, len(exs), tt.requests)
		}
		checkOutputWire(t, tt.input, tt.mode, exs)
	}
}

// checkOutputWire checks the bodies of a typed run's requests as the server received them.
func checkOutputWire(t *testing.T, input string, mode agentkit.OutputMode, exs []Exchange) {
	t.Helper()
	for i, ex := range exs {
		var body struct {
			ResponseFormat *struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string          `json:"name"`
					Strict bool            `json:"strict"`
					Schema json.RawMessage `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
			ToolChoice any `json:"tool_choice"`
			Tools      []wireTool
			Messages   []wireMessage
		}
		if err := json.Unmarshal(ex.Body, &body); err != nil {
			t.Fatalf("%s: request %d: %v", input, i, err)
		}
		if body.ToolChoice != nil {
			t.Errorf("%s: request %d sent tool_choice %v", input, i, body.ToolChoice)
		}
		switch mode {
		case agentkit.OutputNative:
			rf := body.ResponseFormat
			if rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != agentkit.DefaultOutputName || !rf.JSONSchema.Strict || !strings.Contains(string(rf.JSONSchema.Schema), `"additionalProperties":false`) {
				t.Errorf("%s: request %d: response_format %+v", input, i, rf)
			}
		case agentkit.OutputTool:
			if len(body.Tools) != 2 || body.Tools[1].Function.Name != agentkit.DefaultOutputName {
				t.Errorf("%s: request %d: tools %+v, want get_weather and the output tool", input, i, body.Tools)
			}
		case agentkit.OutputPrompt:
			sys, _ := body.Messages[0].Content.(string)
			if body.Messages[0].Role != "system" || !strings.Contains(sys, `"temp_c"`) {
				t.Errorf("%s: request %d: system message %+v, want the schema in it", input, i, body.Messages[0])
			}
			if i == 1 {
				last := body.Messages[len(body.Messages)-1]
				text, _ := last.Content.(string)
				if last.Role != "user" || !strings.Contains(text, "/temp_c") || !strings.Contains(text, "/sky") {
					t.Errorf("%s: the correction %+v, want a user message naming /temp_c and /sky", input, last)
				}
			}
		}
	}
}
