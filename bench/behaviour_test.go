package bench

import (
	"context"
	"testing"

	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/measure"
)

// TestBehaviour prints, for every framework, the order in which the results of a parallel
// turn reach the model when the second call finishes first, and what the framework does with
// a call of an unknown tool and with malformed arguments: end the run with an error, or feed
// an error back to the model and go on. It records; it asserts only toolcall's guarantees.
func TestBehaviour(t *testing.T) {
	var rows []script.Behaviour
	for _, fw := range Frameworks() {
		rows = append(rows, behaviour(measure.Context(t), fw.Name, fw.Agent))
	}
	t.Log("\n" + script.Table(rows))
	tc := rows[1]
	if tc.Framework != "toolcall" || tc.Order != "emission order (slow,fast); calls overlapped, fast finished first" ||
		tc.Unknown[:9] != "fed back:" || tc.Comma[:9] != "repaired," || tc.NotJSON[:9] != "fed back:" {
		t.Errorf("toolcall's row: %+v", tc)
	}
}

func behaviour(ctx context.Context, name string, agent func(s *script.Script, url string) Run) script.Behaviour {
	row := script.Behaviour{Framework: name}
	rec := &script.Recorder{}
	script.TakeLog()
	_, err := agent(script.Order(rec), "")(ctx, "slow, fast")
	row.Order = script.OrderOutcome(err, rec, script.TakeLog())
	bad := func(name, args string, decoded map[string]any) string {
		rec := &script.Recorder{}
		_, err := agent(script.Bad(rec, name, args, decoded), "")(ctx, script.Input)
		return script.FailureOutcome(err, rec)
	}
	row.Unknown = bad(script.UnknownName, `{"city":"北京"}`, map[string]any{"city": "北京"})
	row.Comma = bad("get_weather", script.TrailingComma, nil)
	row.NotJSON = bad("get_weather", script.NotJSON, nil)
	return row
}
