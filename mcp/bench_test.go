package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// BenchmarkCall measures one call of an MCP server's tool as a server process makes it (under
// a cancelable context with a deadline), two ways in alternation so that both see the same
// load: the go-sdk's own ClientSession.CallTool (the floor) and a toolcall tool of
// mcp.Connect (repair, validation against the server's schema, the result rendered for the
// model and kept whole). The server is mcp.NewServer's, in process and over streamable HTTP
// on loopback. It reports each way's time per call (sdk-ns/call, toolcall-ns/call), their
// ratio (x-sdk), and, measured after the timed pairs, each way's bytes and allocations per
// call.
//
//	cd mcp && go test -run '^$' -bench BenchmarkCall -count 5 .
func BenchmarkCall(b *testing.B) {
	echo := tool.New("echo", "Echoes the message.", func(_ context.Context, in struct {
		Message string `json:"message"`
	}) (string, error) {
		return in.Message, nil
	})
	server, err := mcp.NewServer(&sdkmcp.Implementation{Name: "bench", Version: "v1"}, []*tool.Tool{echo}, nil)
	if err != nil {
		b.Fatal(err)
	}
	transports := []struct {
		name string
		new  func(b *testing.B) (sdkmcp.Transport, func())
	}{
		{"in-process", func(b *testing.B) (sdkmcp.Transport, func()) {
			ct, st := sdkmcp.NewInMemoryTransports()
			ss, err := server.Connect(context.Background(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			return ct, func() { ss.Close() }
		}},
		{"http", func(b *testing.B) (sdkmcp.Transport, func()) {
			hs := httptest.NewServer(sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return server }, nil))
			return &sdkmcp.StreamableClientTransport{Endpoint: hs.URL}, hs.Close
		}},
	}
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			sdkCall := sdkCaller(b, tr.new)
			ourCall := toolcallCaller(b, tr.new)
			var sdkTime, ourTime time.Duration
			for b.Loop() {
				t0 := time.Now()
				sdkCall()
				t1 := time.Now()
				ourCall()
				ourTime += time.Since(t1)
				sdkTime += t1.Sub(t0)
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(float64(sdkTime.Nanoseconds())/n, "sdk-ns/call")
			b.ReportMetric(float64(ourTime.Nanoseconds())/n, "toolcall-ns/call")
			b.ReportMetric(float64(ourTime)/float64(sdkTime), "x-sdk")
			b.ReportMetric(bytesPerCall(sdkCall), "sdk-B/call")
			b.ReportMetric(bytesPerCall(ourCall), "toolcall-B/call")
			b.ReportMetric(testing.AllocsPerRun(100, sdkCall), "sdk-allocs/call")
			b.ReportMetric(testing.AllocsPerRun(100, ourCall), "toolcall-allocs/call")
			b.ReportMetric(0, "ns/op") // the pair's time says nothing the two above do not
		})
	}
}

// sdkCaller returns a function that calls echo through the go-sdk's client session.
func sdkCaller(b *testing.B, connect func(*testing.B) (sdkmcp.Transport, func())) func() {
	t, stop := connect(b)
	b.Cleanup(stop)
	cs, err := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "bench-client", Version: "v1"}, nil).Connect(context.Background(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	params := &sdkmcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "你好"}}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// toolcallCaller returns a function that calls echo as an agent does: the tool of
// mcp.Connect, through tool.Handle, with the model's argument text.
func toolcallCaller(b *testing.B, connect func(*testing.B) (sdkmcp.Transport, func())) func() {
	t, stop := connect(b)
	b.Cleanup(stop)
	c, err := mcp.Connect(context.Background(), []mcp.ServerConfig{{Name: "bench", Transport: t}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	tools, err := c.Tools(context.Background())
	if err != nil || len(tools) != 1 {
		b.Fatal(err, len(tools))
	}
	call := tool.Call{ID: "call_1", Name: "echo", Arguments: `{"message":"你好"}`, Tool: tools[0]}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if res := tools[0].Handle(ctx, call); res.Failed() || res.Content != "你好" {
			b.Fatal(res.Kind, res.Content)
		}
	}
}

// bytesPerCall returns the bytes f allocates per call, over 100 calls.
func bytesPerCall(f func()) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 100 {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / 100
}
