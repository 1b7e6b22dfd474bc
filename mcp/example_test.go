package mcp_test

import (
	"context"
	"fmt"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
)

// An MCP server's tools in an agent: Connect lists them, the agent offers them to the model
// before each request, and each call goes to the server. The server here runs in process;
// a real one is a Command (stdio) or a URL (streamable HTTP).
func ExampleConnect() {
	ctx := context.Background()
	server := sdkmcp.NewServer(&sdkmcp.Implementation{Name: "weather", Version: "v1"}, nil)
	sdkmcp.AddTool(server, &sdkmcp.Tool{Name: "get_weather", Description: "查询指定城市的当前天气。",
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, in struct {
			City string `json:"city" jsonschema:"城市中文名"`
		}) (*sdkmcp.CallToolResult, any, error) {
			return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: in.City + "：晴，26℃"}}}, nil, nil
		})
	clientEnd, serverEnd := sdkmcp.NewInMemoryTransports()
	session, err := server.Connect(ctx, serverEnd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Wait()

	client, err := mcp.Connect(ctx, []mcp.ServerConfig{{Name: "weather", Transport: clientEnd}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	model := agentkittest.New(nil,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
		agentkittest.Text("北京今天晴，26℃。"))
	agent := agentkit.New(model, &agentkit.Options{Toolsets: []agentkit.Toolset{client}})
	res, err := agent.Run(ctx, "北京天气怎么样？")
	if err != nil {
		fmt.Println(err)
		return
	}
	call := res.Steps[0].Calls[0]
	fmt.Println(call.Call.Name, "→", call.Result.Content)
	fmt.Println("read-only:", call.Call.Tool.Annotations().ReadOnly, "from", call.Result.Value.(*mcp.Result).Server)
	fmt.Println(res.Output)
	// Output:
	// get_weather → 北京：晴，26℃
	// read-only: true from weather
	// 北京今天晴，26℃。
}
