package adk

import (
	"context"
	"testing"

	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/measure"
)

// TestBehaviour is ../behaviour_test.go for adk-go. adk's model interface carries decoded
// arguments (genai.FunctionCall.Args is a map), so malformed argument text never reaches its
// loop: what happens to it is decided by the model adapter. The malformed cases therefore run
// adk's own OpenAI model (model/openaimodel) against script.Handler over loopback.
func TestBehaviour(t *testing.T) {
	ctx := measure.Context(t)
	row := script.Behaviour{Framework: Name}
	rec := &script.Recorder{}
	script.TakeLog()
	_, err := Agent(script.Order(rec), "")(ctx, "slow, fast")
	row.Order = script.OrderOutcome(err, rec, script.TakeLog())

	rec = &script.Recorder{}
	_, err = Agent(script.Bad(rec, script.UnknownName, `{"city":"北京"}`, map[string]any{"city": "北京"}), "")(ctx, script.Input)
	row.Unknown = script.FailureOutcome(err, rec)

	row.Comma = viaOpenAIModel(t, ctx, script.TrailingComma) + " (openaimodel)"
	row.NotJSON = viaOpenAIModel(t, ctx, script.NotJSON) + " (openaimodel)"
	t.Log("\n" + script.Table([]script.Behaviour{row}))
}

// viaOpenAIModel runs one call of get_weather with args through adk's OpenAI model.
func viaOpenAIModel(t *testing.T, ctx context.Context, args string) string {
	rec := &script.Recorder{}
	bad := script.Bad(rec, "get_weather", args, nil)
	_, err := Agent(bad, measure.Endpoint(t, bad, true))(ctx, script.Input)
	return script.FailureOutcome(err, rec)
}
