package middleware_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func ExampleApprove() {
	transfer := tool.New("transfer", "Transfer money.", func(ctx context.Context, in struct {
		To     string  `json:"to"`
		Amount float64 `json:"amount"`
	}) (string, error) {
		return fmt.Sprintf("sent %.2f to %s", in.Amount, in.To), nil
	})
	ask := func(ctx context.Context, c tool.Call) (bool, error) {
		fmt.Println("approve?", c.Name, c.Arguments)
		return c.ID == "call_1", nil // a human would answer here
	}
	h := middleware.Approve(ask, &middleware.ApproveOptions{Tools: []string{"transfer"}})(transfer.Handle)

	res := h(context.Background(), tool.Call{ID: "call_1", Name: "transfer", Arguments: `{"to":"alice","amount":20}`, Tool: transfer})
	fmt.Println(res.Content)
	res = h(context.Background(), tool.Call{ID: "call_2", Name: "transfer", Arguments: `{"to":"bob","amount":9000}`, Tool: transfer})
	fmt.Println(res.Kind, "|", res.Content)
	res = h(context.Background(), tool.Call{ID: "call_3", Name: "transfer", Arguments: `{"to":"bob"}`, Tool: transfer})
	fmt.Println(res.Kind) // invalid arguments never reach the human
	// Output:
	// approve? transfer {"to":"alice","amount":20}
	// sent 20.00 to alice
	// approve? transfer {"to":"bob","amount":9000}
	// denied | error: the user declined this call to transfer; it did not run. Do not retry it; ask the user how to proceed, or answer without it.
	// invalid_arguments
}

func ExampleWithAllowedTools() {
	search := tool.New("search", "Search.", func(ctx context.Context, in struct{}) (string, error) { return "results", nil })
	del := tool.New("delete_user", "Delete a user.", func(ctx context.Context, in struct{}) (string, error) { return "deleted", nil })
	h := middleware.AllowFromContext()(func(ctx context.Context, c tool.Call) tool.Result { return c.Tool.Handle(ctx, c) })

	// The caller's role decides, per run.
	ctx := middleware.WithAllowedTools(context.Background(), "search")
	fmt.Println(h(ctx, tool.Call{Name: "search", Arguments: "{}", Tool: search}).Content)
	fmt.Println(h(ctx, tool.Call{Name: "delete_user", Arguments: "{}", Tool: del}).Content)
	// Output:
	// results
	// error: the call to delete_user was refused: this tool is not available to this user; the tools available are search. Do not call it again.
}

// ExampleTransport shows ModelRetry honoring a 429's Retry-After with the real
// go-openai client (against a local server here).
func ExampleTransport() {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json")
		if calls == 1 {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`)
			return
		}
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()

	cfg := openai.DefaultConfig("key")
	cfg.BaseURL = srv.URL + "/v1"
	cfg.HTTPClient = &http.Client{Transport: middleware.Transport(nil, nil)}
	model := agentkit.WrapModel(openai.NewClientWithConfig(cfg), middleware.ModelRetry(&middleware.ModelRetryOptions{
		Sleep: func(ctx context.Context, d time.Duration) error {
			fmt.Println("waiting", d) // the default would wait; the example does not
			return nil
		},
	}))

	resp, err := model.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model:    "gpt-4o-mini",
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "hi"}},
	})
	fmt.Println(resp.Choices[0].Message.Content, err)
	// Output:
	// waiting 3s
	// hello <nil>
}
