package mcp_test

import (
	"context"
	"fmt"
	"log"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// A typed tool served over MCP, and the go-sdk's own client calling it in process. Over
// stdio, the server would be run with server.Run(ctx, &sdkmcp.StdioTransport{}); over
// HTTP, served by sdkmcp.NewStreamableHTTPHandler.
func ExampleNewServer() {
	type forecast struct {
		City string  `json:"city"`
		Temp float64 `json:"temp"`
	}
	weather := tool.New("get_weather", "Returns the current weather of a city.",
		func(ctx context.Context, in struct {
			City string `json:"city" jsonschema:"description=the city's name"`
		}) (forecast, error) {
			return forecast{City: in.City, Temp: 26}, nil
		}, tool.Options{Annotations: tool.Annotations{ReadOnly: true}})

	server, err := mcp.NewServer(&sdkmcp.Implementation{Name: "weather", Version: "v1.0.0"}, []*tool.Tool{weather}, nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	clientTransport, serverTransport := sdkmcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Wait()
	client := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "client", Version: "v1.0.0"}, nil)
	cs, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list.Tools {
		fmt.Println(t.Name, "read-only:", t.Annotations.ReadOnlyHint, "output schema:", t.OutputSchema != nil)
	}
	for _, args := range []any{
		map[string]any{"city": "Paris"},
		map[string]any{"town": "Paris"},
	} {
		res, err := cs.CallTool(ctx, &sdkmcp.CallToolParams{Name: "get_weather", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("isError: %v\n%s\n", res.IsError, res.Content[0].(*sdkmcp.TextContent).Text)
		if res.StructuredContent != nil {
			fmt.Println("structured:", res.StructuredContent)
		}
	}
	// Output:
	// get_weather read-only: true output schema: true
	// isError: false
	// {"city":"Paris","temp":26}
	// structured: map[city:Paris temp:26]
	// isError: true
	// invalid arguments for tool get_weather:
	// - /city: required property is missing (string: the city's name)
	// - /town: unknown property; known properties: city
	// Fix these arguments and call the tool again.
}
