package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// TestToolContent: what the model reads of each kind of content block. Text passes
// verbatim; the rest becomes a placeholder saying what it was; nothing is dropped.
func TestToolContent(t *testing.T) {
	size := int64(2048)
	tests := []struct {
		name string
		res  *sdkmcp.CallToolResult
		want string
	}{
		{"one text", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "晴 <26℃> & 风"}}}, "晴 <26℃> & 风"},
		{"texts joined", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "a"}, &sdkmcp.TextContent{Text: "b"}}}, "a\nb"},
		{"image", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "here:"}, &sdkmcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)}}},
			"here:\n[image: image/png, 1234 bytes; images cannot be shown in this conversation, the application has it]"},
		{"audio", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)}}},
			"[audio: audio/wav, 10 bytes; audio cannot be played in this conversation, the application has it]"},
		{"resource link", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.ResourceLink{URI: "file:///a.txt", Name: "a.txt", MIMEType: "text/plain", Size: &size, Description: "A file."}}},
			"[resource link: file:///a.txt (name a.txt, text/plain, 2048 bytes): A file.]"},
		{"embedded text", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.EmbeddedResource{Resource: &sdkmcp.ResourceContents{URI: "mem://n", MIMEType: "text/plain", Text: "the note"}}}},
			"[embedded resource: mem://n, text/plain]\nthe note"},
		{"embedded blob", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.EmbeddedResource{Resource: &sdkmcp.ResourceContents{URI: "mem://z", MIMEType: "application/gzip", Blob: []byte{1, 2, 3}}}}},
			"[embedded resource: mem://z, application/gzip, 3 bytes of binary data, not shown; the application has it]"},
		{"structured only", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{}, StructuredContent: map[string]any{"temp": 26, "city": "北京"}}, `{"city":"北京","temp":26}`},
		{"structured and text: the text", &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "26 degrees"}}, StructuredContent: map[string]any{"temp": 26}}, "26 degrees"},
		{"nothing", &sdkmcp.CallToolResult{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&mcp.Result{CallToolResult: tt.res}).ToolContent()
			if got != tt.want {
				t.Errorf("ToolContent() = %q, want %q", got, tt.want)
			}
		})
	}
}

type weather struct {
	City string  `json:"city"`
	Temp float64 `json:"temp"`
}

// TestResultsThroughARun: a server's answers as the model reads them and as the
// application keeps them, through a run: content kinds over the wire, isError as a tool
// failure carrying the server's text, structured content typed on request.
func TestResultsThroughARun(t *testing.T) {
	s := newServer()
	handler := func(res *sdkmcp.CallToolResult) sdkmcp.ToolHandler {
		return func(context.Context, *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) { return res, nil }
	}
	addRaw(s, &sdkmcp.Tool{Name: "image", Description: "An image."}, handler(&sdkmcp.CallToolResult{Content: []sdkmcp.Content{
		&sdkmcp.TextContent{Text: "Here it is:"}, &sdkmcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG....")}}}))
	addRaw(s, &sdkmcp.Tool{Name: "fails", Description: "Fails."}, handler(&sdkmcp.CallToolResult{IsError: true,
		Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "ENOENT: no such file"}}}))
	sdkmcp.AddTool(s, &sdkmcp.Tool{Name: "weather", Description: "Weather."},
		func(ctx context.Context, req *sdkmcp.CallToolRequest, in struct{}) (*sdkmcp.CallToolResult, weather, error) {
			return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{}}, weather{City: "北京", Temp: 26.5}, nil
		})
	c := connect(t, nil, mcp.ServerConfig{Name: "kinds", Transport: newInProcess(t, s)})
	res, model := run(t, c,
		agentkittest.ToolCalls(agentkittest.Call("image", `{}`), agentkittest.Call("fails", `{}`), agentkittest.Call("weather", `{}`)),
		agentkittest.Text("done"))

	var read []string
	for _, m := range agentkittest.ToolMessages(model.Requests()[1]) {
		read = append(read, m.Content)
	}
	want := []string{
		"Here it is:\n[image: image/png, 8 bytes; images cannot be shown in this conversation, the application has it]",
		"error: tool fails failed: ENOENT: no such file",
		`{"city":"北京","temp":26.5}`,
	}
	if diff := cmp.Diff(want, read); diff != "" {
		t.Errorf("the model read (-want +got):\n%s", diff)
	}

	rs := results(res)
	img := rs[0].Value.(*mcp.Result).CallToolResult.Content[1].(*sdkmcp.ImageContent)
	if img.MIMEType != "image/png" || string(img.Data) != "\x89PNG...." {
		t.Errorf("the image kept: %s %q", img.MIMEType, img.Data)
	}
	var te *mcp.ToolError
	if rs[1].Kind != tool.KindToolError || !errors.As(rs[1].Err, &te) || !te.Result.CallToolResult.IsError || te.Result.Server != "kinds" {
		t.Errorf("isError: Kind %s, Err %v", rs[1].Kind, rs[1].Err)
	}
	w, err := mcp.Structured[weather](rs[2])
	if err != nil || w != (weather{"北京", 26.5}) {
		t.Errorf("Structured = %+v, %v", w, err)
	}
	out := rs[2].Value.(*mcp.Result).OutputSchema
	if !strings.Contains(string(out), `"temp"`) {
		t.Errorf("OutputSchema = %s", out)
	}
}

// TestStructuredErrors: Structured says why it has nothing to decode.
func TestStructuredErrors(t *testing.T) {
	tests := []struct {
		name string
		res  tool.Result
		want string
	}{
		{"failed call", tool.Failure(tool.KindTimeout, errors.New("slow")), "the call failed (timeout)"},
		{"not an MCP result", tool.Result{Value: "text"}, "not an MCP tool's (its Value is string)"},
		{"no structured content", tool.Result{Value: &mcp.Result{Server: "s", Tool: "t", CallToolResult: &sdkmcp.CallToolResult{}}}, "tool t of server s returned no structured content"},
		{"wrong shape", tool.Result{Value: &mcp.Result{Server: "s", Tool: "t", CallToolResult: &sdkmcp.CallToolResult{StructuredContent: map[string]any{"temp": "hot"}}}}, "does not decode into mcp_test.weather"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcp.Structured[weather](tt.res)
			if err == nil {
				t.Fatal("no error")
			}
			wantContains(t, "error", err.Error(), tt.want)
		})
	}
}
