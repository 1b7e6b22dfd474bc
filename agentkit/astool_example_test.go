package agentkit_test

import (
	"context"
	"fmt"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/tool"
)

// A sub-agent as one tool of another agent: the parent's model calls it with {"input": ...}
// and reads its final answer.
func ExampleAgent_Tool() {
	researcher := agentkit.New(agentkittest.New(nil, agentkittest.Text("Paris.")), &agentkit.Options{
		Instructions: "You answer geography questions in one word.",
	})
	parent := agentkit.New(agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("researcher", `{"input":"What is the capital of France?"}`)),
		agentkittest.Text("The capital of France is Paris."),
	), &agentkit.Options{
		Tools: []*tool.Tool{researcher.Tool("researcher", "Answers geography questions.",
			tool.Options{Annotations: tool.Annotations{ReadOnly: true}})},
	})
	res, err := parent.Run(context.Background(), "What is the capital of France?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Steps[0].Calls[0].Result.Content)
	fmt.Println(res.Output)
	// Output:
	// Paris.
	// The capital of France is Paris.
}
