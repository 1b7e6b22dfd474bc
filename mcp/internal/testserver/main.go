// Command testserver serves a few toolcall tools over MCP on stdin and stdout, for package
// mcp's stdio tests: they build it and connect to it with the go-sdk's CommandTransport.
package main

import (
	"context"
	"errors"
	"log"
	"os"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"description=城市中文名"`
}

type forecastOut struct {
	City  string    `json:"city"`
	Temps []float64 `json:"temps"`
}

func main() {
	tools := []*tool.Tool{
		tool.New("get_weather", "查询指定城市的当前天气。", func(ctx context.Context, in weatherIn) (string, error) {
			return in.City + ": 晴", nil
		}, tool.Options{Annotations: tool.Annotations{ReadOnly: true}}),
		tool.New("forecast", "A forecast with structured output.", func(ctx context.Context, in weatherIn) (forecastOut, error) {
			return forecastOut{City: in.City, Temps: []float64{21.5}}, nil
		}),
		tool.New("fail", "Always fails.", func(ctx context.Context, in struct{}) (string, error) {
			return "", errors.New("the database is down")
		}),
		tool.New("crash", "Always panics.", func(ctx context.Context, in struct{}) (string, error) {
			panic("nil map write")
		}),
	}
	server, err := mcp.NewServer(&sdkmcp.Implementation{Name: "toolcall-testserver", Version: "v0.0.1"}, tools, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := server.Run(context.Background(), &sdkmcp.StdioTransport{}); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}
