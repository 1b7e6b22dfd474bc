package agentkit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A run budget that runs out ends a typed run as the iteration limit does: with
// FinalAnswerOnLimit, the final tool-free request still gives a validated T, and the stop
// names the budget; a final answer that is not a valid T wraps ErrOutputInvalid and
// ErrBudgetExhausted.
func TestOutputWithBudget(t *testing.T) {
	valid := `{"city":"Paris","temp_c":26,"sky":"sunny"}`
	for _, mode := range modes {
		for _, tc := range []struct {
			name      string
			final     string // the final request's reply
			wantValue bool
		}{
			{"valid", valid, true},
			{"invalid", `{"city":"Paris","temp_c":999,"sky":"sunny"}`, false},
		} {
			t.Run(string(mode)+"/"+tc.name, func(t *testing.T) {
				m := agentkittest.New(t,
					agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`)),
					agentkittest.Text(tc.final), // the final request may not call tools: text in every mode
				)
				spec := agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})
				a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{parisWeather(nil)}, Output: spec,
					FinalAnswerOnLimit: true, Budget: agentkit.Budget{ModelCalls: 2}})
				res, err := a.Run(context.Background(), "Weather in Paris?")
				if res.Stop != agentkit.StopBudget || res.Limit != agentkit.LimitModelCalls {
					t.Errorf("Stop %q, Limit %q; want %q, %q", res.Stop, res.Limit, agentkit.StopBudget, agentkit.LimitModelCalls)
				}
				got, ok := agentkit.ValueOf[forecast](res)
				if ok != tc.wantValue {
					t.Fatalf("ValueOf ok = %v, want %v (err %v)", ok, tc.wantValue, err)
				}
				if tc.wantValue {
					if err != nil {
						t.Errorf("Run: %v, want nil: the final request answered", err)
					}
					if want := (forecast{City: "Paris", TempC: 26, Sky: "sunny"}); !cmp.Equal(got, want) {
						t.Errorf("ValueOf = %+v, want %+v", got, want)
					}
					return
				}
				if !errors.Is(err, agentkit.ErrOutputInvalid) || !errors.Is(err, agentkit.ErrBudgetExhausted) {
					t.Errorf("Run error %v: want ErrOutputInvalid and ErrBudgetExhausted", err)
				}
				var ae *tool.ArgumentError
				if !errors.As(err, &ae) {
					t.Errorf("Run error %v: want the last answer's *tool.ArgumentError", err)
				}
			})
		}
	}
}
