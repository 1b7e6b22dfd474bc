package agentkit_test

import (
	"context"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// Result.Steps[i].Message is the model's message as received, Result.Messages the transcript:
// they share nothing, so redacting the arguments of a step (for a log or a trace) leaves the
// transcript, which a next run sends, as it was.
func TestStepMessageDoesNotAliasTranscript(t *testing.T) {
	m := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.CallID("c1", "get_weather", `{"city":"Paris"}`)),
		agentkittest.Text("Sunny."),
	)
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{weatherTool()}})
	res, err := a.Run(context.Background(), "weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Steps) == 0 || len(res.Steps[0].Message.ToolCalls) != 1 {
		t.Fatalf("steps %+v: want a first step with one call", res.Steps)
	}
	res.Steps[0].Message.ToolCalls[0].Function.Arguments = `{"city":"[redacted]"}`
	for _, msg := range res.Messages {
		for _, c := range msg.ToolCalls {
			if got, want := c.Function.Arguments, `{"city":"Paris"}`; got != want {
				t.Errorf("the transcript holds the call's arguments as %s, want %s: editing Result.Steps changed it", got, want)
			}
		}
	}
}
