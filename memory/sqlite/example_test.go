package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory/sqlite"
	"github.com/toolcall/toolcall/tool"
)

// A conversation that outlives its process: each run opens the file, as a new process would,
// and the second run's request carries the first run's turn.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "sessions")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sessions.db")

	weather := tool.New("get_weather", "查询指定城市的当前天气。",
		func(ctx context.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return in.City + "：晴，26℃", nil
		})
	run := func(input string, replies ...agentkittest.Reply) *agentkittest.Model {
		store, err := sqlite.Open(path, nil)
		if err != nil {
			fmt.Println(err)
			return nil
		}
		defer store.Close()
		model := agentkittest.New(nil, replies...)
		agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, Memory: store})
		res, err := agent.RunSession(context.Background(), "user-42", input)
		if err != nil {
			fmt.Println(err)
			return nil
		}
		fmt.Println(res.Output)
		return model
	}

	run("北京天气怎么样？",
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京晴，26℃。"))
	model := run("谢谢！", agentkittest.Text("不客气！"))
	if model != nil {
		fmt.Print(agentkit.FormatTranscript(model.Requests()[0].Messages))
	}
	// Output:
	// 北京晴，26℃。
	// 不客气！
	// [0] user: 北京天气怎么样？
	// [1] assistant:
	//     -> get_weather({"city":"北京"}) [call_1]
	// [2] tool (call_1): 北京：晴，26℃
	// [3] assistant: 北京晴，26℃。
	// [4] user: 谢谢！
}
