package middleware_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// trace returns a middleware that logs "name>" on the way in and "<name" on the way out.
func trace(name string, log func(string)) tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			log(name + ">")
			res := next(ctx, call)
			log("<" + name)
			return res
		}
	}
}

func TestOrder(t *testing.T) {
	var got []string
	log := func(s string) { got = append(got, s) }
	h := tool.Chain(trace("a", log), trace("b", log))(func(context.Context, tool.Call) tool.Result {
		log("tool")
		return tool.Text("ok")
	})
	h(context.Background(), tool.Call{Name: "x"})
	want := []string{"a>", "b>", "tool", "<b", "<a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestOrderInAgent checks the same order through agentkit.Options.Middleware, around a real
// tool, for model middleware too.
func TestOrderInAgent(t *testing.T) {
	var mu sync.Mutex
	var got []string
	log := func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
	modelTrace := func(name string) agentkit.ModelMiddleware {
		return agentkit.CallMiddlewareFunc(func(next agentkit.CallFunc) agentkit.CallFunc {
			return func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
				log("m" + name + ">")
				resp, err := next(ctx, req)
				log("<m" + name)
				return resp, err
			}
		})
	}
	echo := tool.New("echo", "Echo the text.", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		log("tool")
		return in.Text, nil
	})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("echo", `{"text":"hi"}`)),
		agentkittest.Text("done"))
	agent := agentkit.New(model, &agentkit.Options{
		Tools:           []*tool.Tool{echo},
		Middleware:      []tool.Middleware{trace("a", log), trace("b", log)},
		ModelMiddleware: []agentkit.ModelMiddleware{modelTrace("A"), modelTrace("B")},
	})
	if _, err := agent.Run(context.Background(), "say hi"); err != nil {
		t.Fatal(err)
	}
	want := "mA> mB> <mB <mA a> b> tool <b <a mA> mB> <mB <mA"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("order:\n got %s\nwant %s", g, want)
	}
}

// Example_order shows the onion: the first middleware is the outermost.
func Example_order() {
	trace := func(name string) tool.Middleware {
		return func(next tool.Handler) tool.Handler {
			return func(ctx context.Context, call tool.Call) tool.Result {
				fmt.Println(name + ">")
				res := next(ctx, call)
				fmt.Println("<" + name)
				return res
			}
		}
	}
	h := tool.Chain(trace("a"), trace("b"))(func(ctx context.Context, call tool.Call) tool.Result {
		fmt.Println("tool")
		return tool.Text("ok")
	})
	h(context.Background(), tool.Call{ID: "call_1", Name: "echo"})
	// Output:
	// a>
	// b>
	// tool
	// <b
	// <a
}
