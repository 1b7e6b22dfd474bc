package middleware_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// A destructive call waits: its result is pending, with the arguments it would run with;
// the agent loop pauses the run on it. The resumed run's context approves it, and it runs.
func ExampleRequireApproval() {
	transfer := tool.New("transfer", "Transfer money.", func(ctx context.Context, in struct {
		To     string  `json:"to"`
		Amount float64 `json:"amount"`
	}) (string, error) {
		return fmt.Sprintf("sent %.2f to %s", in.Amount, in.To), nil
	}) // no annotations: MCP reads it as destructive
	h := middleware.RequireApproval(middleware.Destructive)(transfer.Handle)
	call := tool.Call{ID: "call_1", Name: "transfer", Arguments: "```json\n{\"to\": \"alice\", \"amount\": 20}\n```", Tool: transfer}

	res := h(context.Background(), call)
	fmt.Println(res.Kind, string(res.Value.(json.RawMessage)))
	res = h(tool.WithApproved(context.Background(), "call_1"), call)
	fmt.Println(res.Content)
	// Output:
	// pending {"to":"alice","amount":20}
	// sent 20.00 to alice
}
