package agentkit_test

// Replays of the Cerebras structured-output recordings of ../shared/recordings/field (vercel
// ai's fixtures, zai-glm-4.7, plain and streamed): response_format json_schema beside a
// tool. The first reply calls the tool; the second answers {"result":"2026"} in its text
// and calls the tool again. The run takes that answer after the call, as tool mode takes
// the output tool's beside other calls, instead of asking again.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/internal/recording"
	"github.com/toolcall/toolcall/tool"
)

type magicAnswer struct {
	Result string `json:"result"`
}

func TestReplayCerebrasStructuredOutput(t *testing.T) {
	field := filepath.Join(replayDir(t), "field")
	pairs := map[string][2]string{
		"plain":    {"vercel__cerebras__cerebras-structured-output-tools.1", "vercel__cerebras__cerebras-structured-output-tools.2"},
		"streamed": {"vercel__cerebras__cererebras-structured-output-tools.1.chunks-1", "vercel__cerebras__cererebras-structured-output-tools.1.chunks-2"},
	}
	for name, pair := range pairs {
		var exchanges []recording.Exchange
		for _, dir := range pair {
			f, err := recording.LoadField(filepath.Join(field, dir))
			if err != nil {
				t.Fatal(err)
			}
			exchanges = append(exchanges, f.Exchanges[0])
		}
		for _, c := range replayClients {
			t.Run(name+"/"+string(c), func(t *testing.T) {
				replayCerebras(t, exchanges, name == "streamed", c)
			})
		}
	}
}

func replayCerebras(t *testing.T, exchanges []recording.Exchange, stream bool, c replayClient) {
	calls := 0
	magic := tool.New("nonUsefulTool", "A non-useful tool that returns a magic number", func(context.Context, struct{}) (string, error) {
		calls++
		return "2026", nil
	})
	srv := newReplayServer(t, exchanges...)
	spec := agentkit.Output[magicAnswer](&agentkit.OutputOptions{Mode: agentkit.OutputNative})
	a := agentkit.New(srv.model(c), &agentkit.Options{Model: "zai-glm-4.7", Tools: []*tool.Tool{magic}, Output: spec})
	var res *agentkit.Result
	var err error
	if stream {
		s := a.RunStream(context.Background(), "What is the magic number?")
		for range s.Events() {
		}
		res, err = s.Result()
	} else {
		res, err = a.Run(context.Background(), "What is the magic number?")
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if got, ok := agentkit.ValueOf[magicAnswer](res); !ok || got.Result != "2026" {
		t.Errorf("value %+v (%v), want the recorded answer", got, ok)
	}
	bodies := srv.bodies()
	if res.Stop != agentkit.StopAnswered || len(bodies) != 2 || calls != 2 {
		t.Errorf("Stop %q after %d requests, %d tool calls; want answered after the 2 recorded, both calls run", res.Stop, len(bodies), calls)
	}
	for i, b := range bodies {
		var sent struct {
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Name   string          `json:"name"`
					Schema json.RawMessage `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
			ToolChoice any `json:"tool_choice"`
		}
		if err := json.Unmarshal(b, &sent); err != nil {
			t.Fatal(err)
		}
		rf := sent.ResponseFormat
		if rf.Type != "json_schema" || rf.JSONSchema.Name != agentkit.DefaultOutputName || string(rf.JSONSchema.Schema) != string(spec.Schema()) || sent.ToolChoice != nil {
			t.Errorf("request %d: response_format %+v, tool_choice %v", i, rf, sent.ToolChoice)
		}
	}
}
