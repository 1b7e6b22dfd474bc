package agentkit_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

func TestStress(t *testing.T) {
	defer goleak.VerifyNone(t)
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 300; trial++ {
		echo := tool.New("echo", "e", func(ctx context.Context, in struct {
			N int `json:"n"`
			D int `json:"d"`
		}) (string, error) {
			select {
			case <-time.After(time.Duration(in.D) * time.Microsecond):
			case <-ctx.Done():
				return "", ctx.Err()
			}
			return fmt.Sprint("r", in.N), nil
		})
		seq := tool.New("seq", "s", func(ctx context.Context, in struct {
			N int `json:"n"`
		}) (string, error) {
			return fmt.Sprint("s", in.N), nil
		}, tool.Options{Sequential: true})
		var replies []agentkittest.Reply
		for it := 0; it < 3; it++ {
			var calls []openai.ToolCall
			for i := 0; i < 1+rng.Intn(5); i++ {
				name := "echo"
				if rng.Intn(4) == 0 {
					name = "seq"
				}
				id := ""
				if rng.Intn(2) == 0 {
					id = "dup"
				}
				calls = append(calls, agentkittest.CallID(id, name, fmt.Sprintf(`{"n":%d,"d":%d}`, it*10+i, rng.Intn(3000))))
			}
			replies = append(replies, agentkittest.ToolCalls(calls...))
		}
		replies = append(replies, agentkittest.Text("done"))
		m := agentkittest.New(nil, replies...)
		a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{echo, seq}, MaxConcurrency: 1 + rng.Intn(4)})
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.Intn(8000))*time.Microsecond)
		var res *agentkit.Result
		if rng.Intn(2) == 0 {
			res, _ = a.Run(ctx, "go")
		} else {
			res, _ = a.RunStream(ctx, "go").Result()
		}
		cancel()
		if err := agentkit.ValidateHistory(res.Messages); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		// every recorded result is under its call's id, and the content matches the args
		for _, st := range res.Steps {
			for _, c := range st.Calls {
				var found bool
				for _, msg := range res.Messages {
					if msg.Role == "tool" && msg.ToolCallID == c.Call.ID {
						found = true
						if msg.Content != c.Result.Content {
							t.Fatalf("trial %d: id %s content %q vs record %q", trial, c.Call.ID, msg.Content, c.Result.Content)
						}
					}
				}
				if !found {
					t.Fatalf("trial %d: no tool msg for %s", trial, c.Call.ID)
				}
			}
		}
	}
	time.Sleep(100 * time.Millisecond)
}
