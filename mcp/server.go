package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// ServerOptions configures [NewServer]. A nil *ServerOptions, or the zero ServerOptions, is
// valid: every field documents its default. NewServer copies the options.
type ServerOptions struct {
	// Middleware wraps every call of a served tool, as Options.Middleware of an agent does
	// (compose several with tool.Chain). It sees the tool.Call with Tool set, and the
	// tool.Result the client will be sent. Nil: none.
	Middleware tool.Middleware
	// Instructions are sent to clients on initialization (the server's instructions for
	// the model on the other side). Empty: SDK.Instructions, if any.
	Instructions string
	// Logger receives the server's records, at Error level: each call that panicked (in
	// the tool or in Middleware), with the stack, and each output that does not match its
	// tool's output schema. Other calls are logged by middleware (middleware.Log), once
	// each. It is also the go-sdk server's logger unless SDK.Logger is set. Nil logs
	// nothing.
	Logger *slog.Logger
	// SDK are the go-sdk's own server options (capabilities, completion and subscription
	// handlers, page size, keep-alive...), passed to sdkmcp.NewServer after Instructions and
	// Logger above fill their empty fields. Nil: the go-sdk's defaults.
	SDK *sdkmcp.ServerOptions
}

// Contenter is implemented by a tool's output (its Result.Value) that has more to send an
// MCP client than text: images, audio, embedded resources, several blocks. The served
// call's content is then MCPContent, instead of one text block with Result.Content. Pair
// it with tool.Contenter, which says what a model in an agent reads of the same output.
type Contenter interface {
	MCPContent() []sdkmcp.Content
}

type requestKey struct{}

// RequestFromContext returns the MCP request a served tool call is answering, from the
// context the tool's function (and the Middleware) runs with: the session it came on (to
// log, notify progress, ask for sampling or elicitation), its metadata and progress token,
// its HTTP header. False outside a call served by a server of [NewServer].
func RequestFromContext(ctx context.Context) (*sdkmcp.CallToolRequest, bool) {
	req, ok := ctx.Value(requestKey{}).(*sdkmcp.CallToolRequest)
	return req, ok
}

// NewServer returns a go-sdk MCP server that serves tools, to run with the go-sdk's own
// transports: server.Run(ctx, &sdkmcp.StdioTransport{}) for stdio,
// sdkmcp.NewStreamableHTTPHandler for streamable HTTP. The returned server is the go-sdk's:
// add resources, prompts or more tools to it as its documentation says.
//
// Each tool is listed with its name, description, input schema (tool.Tool.Parameters),
// output schema (tool.Tool.OutputSchema, when it has one) and annotations
// (tool.Options.Annotations: title, readOnlyHint, destructiveHint, idempotentHint,
// openWorldHint, the MCP defaults kept; none when they are zero). A call runs as in an
// agent: the arguments text goes through tool.Tool.Handle — repair, validation against the
// schema, decoding — wrapped by Middleware, with a tool.Call whose ID is fresh for the
// call (MCP gives a tool no call id), Name the tool's, Arguments the raw arguments text,
// and Tool the tool. The go-sdk does not validate the arguments of a tool registered this
// way: Handle does, once, and an invalid call is answered with the same text a model in an
// agent reads.
//
// The result: on success, Result.Content as one text block (or the output's MCPContent,
// see [Contenter]), and, when the tool has an output schema, the output as
// structuredContent, checked against the schema (tool.Tool.StructuredOutput). A failure of
// any Kind — invalid arguments, the tool's error, a panic, a timeout, a refusal — is a
// result with isError set and Result.Content as its text, which the model on the other
// side reads; so is a successful output that does not match its output schema. No panic
// escapes, and a canceled request (notifications/cancelled, a closed session) cancels the
// call's context. A call to a tool the server does not have is answered by the go-sdk with
// a protocol error, without reaching Middleware.
//
// NewServer fails when impl is nil, a tool is nil, two tools share a name, or the go-sdk
// refuses the options or a tool (an input schema's x-mcp-header annotation it cannot send).
func NewServer(impl *sdkmcp.Implementation, tools []*tool.Tool, opts *ServerOptions) (*sdkmcp.Server, error) {
	if impl == nil {
		return nil, errors.New("mcp: NewServer: nil Implementation")
	}
	var o ServerOptions
	if opts != nil {
		o = *opts
	}
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("mcp: NewServer: tools[%d] is nil", i)
		}
		if seen[t.Name()] {
			return nil, fmt.Errorf("mcp: NewServer: two tools are named %q", t.Name())
		}
		seen[t.Name()] = true
	}
	server, err := newSDKServer(impl, o)
	if err != nil {
		return nil, err
	}
	for _, t := range tools {
		if err := addTool(server, t, o); err != nil {
			return nil, err
		}
	}
	return server, nil
}

// addTool adds t to server. The go-sdk panics on a tool it refuses (an input schema whose
// x-mcp-header annotations it cannot send, say): a schema can be data (tool.Raw), so this is
// an error naming the tool.
func addTool(server *sdkmcp.Server, t *tool.Tool, o ServerOptions) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mcp: NewServer: tool %q: %v", t.Name(), p)
		}
	}()
	server.AddTool(definition(t), serve(t, o))
	return nil
}

// newSDKServer calls sdkmcp.NewServer, which panics on options it refuses.
func newSDKServer(impl *sdkmcp.Implementation, o ServerOptions) (s *sdkmcp.Server, err error) {
	var so sdkmcp.ServerOptions
	if o.SDK != nil {
		so = *o.SDK
	}
	if so.Instructions == "" {
		so.Instructions = o.Instructions
	}
	if so.Logger == nil {
		so.Logger = o.Logger
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("mcp: NewServer: %v", p)
		}
	}()
	return sdkmcp.NewServer(impl, &so), nil
}

// definition is the MCP tool that describes t.
func definition(t *tool.Tool) *sdkmcp.Tool {
	d := &sdkmcp.Tool{
		Name:        t.Name(),
		Description: t.Description(),
		InputSchema: json.RawMessage(t.Parameters()),
	}
	if out := t.OutputSchema(); out != nil {
		d.OutputSchema = json.RawMessage(out)
	}
	if a := t.Annotations(); a != (tool.Annotations{}) {
		d.Annotations = &sdkmcp.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: a.Destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   a.OpenWorld,
		}
	}
	return d
}

// serve is the go-sdk handler of t's calls.
func serve(t *tool.Tool, o ServerOptions) sdkmcp.ToolHandler {
	h := tool.Chain(o.Middleware)(func(ctx context.Context, call tool.Call) tool.Result {
		return t.Handle(ctx, call)
	})
	logger := o.Logger
	return func(ctx context.Context, req *sdkmcp.CallToolRequest) (*sdkmcp.CallToolResult, error) {
		call := tool.Call{ID: callID(), Name: t.Name(), Tool: t}
		if req.Params != nil {
			call.Arguments = string(req.Params.Arguments)
		}
		ctx = context.WithValue(ctx, requestKey{}, req)
		if req.Params != nil && req.Params.GetProgressToken() != nil && req.Session != nil {
			ctx = agentkit.WithProgress(ctx, progressNotifier(ctx, req))
		}
		res := handle(ctx, h, call)
		if res.Kind == tool.KindPanic && logger != nil {
			logger.ErrorContext(ctx, "mcp: a tool call panicked", "tool", call.Name, "call", call.ID, "err", res.Err, "stack", string(res.Stack))
		}
		return toResult(t, res, logger), nil
	}
}

// progressNotifier sends what the call reports with agentkit.ReportProgress to the client,
// as notifications/progress under the request's progress token. A notification that cannot
// be sent (the session closed) is dropped: progress is advisory.
func progressNotifier(ctx context.Context, req *sdkmcp.CallToolRequest) func(agentkit.Progress) {
	token := req.Params.GetProgressToken()
	return func(p agentkit.Progress) {
		_ = req.Session.NotifyProgress(ctx, &sdkmcp.ProgressNotificationParams{
			ProgressToken: token, Progress: p.Done, Total: p.Total, Message: p.Message,
		})
	}
}

// handle runs h, turning a panic that escaped the middleware into a failed result.
func handle(ctx context.Context, h tool.Handler, call tool.Call) (res tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = tool.Result{
				Kind:    tool.KindPanic,
				Err:     fmt.Errorf("tool %s panicked: %v", call.Name, p),
				Content: "error: tool " + call.Name + " crashed (" + fmt.Sprint(p) + "). This is a bug in the tool, not in your arguments: do not retry this call; try another way or tell the user.",
				Stack:   debug.Stack(),
			}
		}
	}()
	return h(ctx, call)
}

// toResult is the MCP result of res, a result of t.
func toResult(t *tool.Tool, res tool.Result, logger *slog.Logger) *sdkmcp.CallToolResult {
	if res.Failed() {
		return errorResult(res.Content)
	}
	out := &sdkmcp.CallToolResult{}
	if c, ok := res.Value.(Contenter); ok {
		out.Content = c.MCPContent()
	}
	if out.Content == nil {
		content := res.Content
		if content == "" {
			content = tool.EmptyContent
		}
		out.Content = []sdkmcp.Content{&sdkmcp.TextContent{Text: content}}
	}
	if t.OutputSchema() == nil {
		return out
	}
	structured, err := t.StructuredOutput(res.Value)
	if err != nil {
		if logger != nil {
			logger.Error("mcp: a tool's output does not match its output schema", "tool", t.Name(), "err", err)
		}
		return errorResult("error: " + err.Error() + ". This is a bug in the tool, not in your arguments.")
	}
	out.StructuredContent = structured
	return out
}

func errorResult(text string) *sdkmcp.CallToolResult {
	if text == "" {
		text = "error: the tool call failed"
	}
	return &sdkmcp.CallToolResult{IsError: true, Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: text}}}
}

// callID returns a fresh id for a served call: MCP gives a tools/call no id a tool can see.
func callID() string { return "mcp_" + rand.Text() }
