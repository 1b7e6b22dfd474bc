// Package mcp connects toolcall to the Model Context Protocol, both ways: the tools of any MCP
// server become *tool.Tool values an agent calls like its own, and toolcall's tools — an
// agent among them, as one tool — are served to any MCP client.
//
// It is built on github.com/modelcontextprotocol/go-sdk, the official SDK (imported here as
// sdkmcp), in a Go module of its own: the SDK brings golang.org/x/oauth2, a JWT library, a
// YAML parser and more, which an application that never speaks MCP should neither build nor
// audit. The go-sdk's own types (transports, requests, results) appear in this package's API
// where an application needs them; nothing here hides them.
//
// # MCP servers' tools in an agent
//
// [Connect] starts or reaches each MCP server (ServerConfig.Command for a subprocess over
// stdio, ServerConfig.URL for streamable HTTP, ServerConfig.Transport for anything else — an
// *sdkmcp.SSEClientTransport for a server on the older HTTP+SSE transport), initializes the
// session and lists its tools. The [Client] is an agentkit.Toolset (the zero Client one with
// no tools):
//
//	client, err := mcp.Connect(ctx, []mcp.ServerConfig{
//		{Name: "fs", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", dir}, Prefix: "fs_"},
//		{Name: "search", URL: "https://example.com/mcp"},
//	}, nil)
//	if err != nil { ... }
//	defer client.Close()
//	agent := agentkit.New(model, &agentkit.Options{Toolsets: []agentkit.Toolset{client}})
//
// Each MCP tool becomes a tool.Raw on the server's input schema, so its calls go through
// everything a toolcall tool's do: repair, validation, middleware, parallel ordered
// execution, the history rules. Its annotations become tool.Annotations (middleware.When with
// middleware.Destructive asks for approval, with middleware.Idempotent retries), and tools
// not marked read-only run sequentially unless Options.Sequential says otherwise. The list
// is fetched at Connect and listed again after notifications/tools/list_changed, before the
// next model request, never in the middle of a turn; servers are refreshed in parallel, and
// one that cannot be reached or does not answer its list keeps its last tools (logged) and is
// tried again at the next request. Two servers with a tool of the same name fail, naming
// both; a ServerConfig.Prefix keeps them apart. A name providers refuse in a function name
// (MCP allows a dot; a space, another script, more than 64 bytes) is offered under a mapped
// name — each such character "_", a long name cut with a hash — and the server is still
// called by its own ([Result].Tool). A description over 16 KiB is cut for the model, saying
// so: it is sent with every request.
//
// The model reads text content verbatim. Chat-completions tool messages carry only text, so
// images, audio and resources reach the model as placeholders saying what was returned
// (kind, MIME type, size, URI), while the whole CallToolResult stays in tool.Result.Value as
// a *[Result]; [Structured] decodes its structured content into the application's type.
// isError results are tool failures the model reads (a *[ToolError]); a call the server
// refuses with a JSON-RPC error says it was refused.
//
// Each call is bounded by ServerConfig.CallTimeout (a KindTimeout result) and carries a
// progress token whose notifications become the run's EventToolProgress events. A lost
// session reconnects once: a call that never reached the server is sent again, a call that
// may have run never is. A server killed mid-call fails that call, and the run goes on.
// Elicitation is declined and sampling refused unless Options.Elicit and Options.Sample
// answer them. A Command server's stderr goes to Options.Logger line by line (on unix), and
// the error of a server that fails to start quotes its last 2 KiB. Close ends every session,
// kills the subprocesses with their process groups, closes the idle connections of the HTTP
// clients it made and waits for every goroutine.
//
// # Our tools over MCP
//
// [NewServer] returns a go-sdk *Server that serves *tool.Tool values — typed tools, raw
// tools, an agent as one tool (agentkit's Agent.Tool) — to any MCP client; run it with the
// go-sdk's transports: server.Run(ctx, &sdkmcp.StdioTransport{}), or
// sdkmcp.NewStreamableHTTPHandler. Each tool is listed with its schema, its output schema
// (reflected from a struct Out, see tool.Tool.OutputSchema) and its annotations
// (tool.Options.Annotations, MCP's defaults kept). A call goes through exactly what it goes
// through in an agent: tool.Tool.Handle repairs, validates and decodes the arguments (the
// go-sdk does not, for tools registered this way), ServerOptions.Middleware wraps it, and
// every failure — invalid arguments, an error, a panic, a timeout, a refusal — is an isError
// result whose text is what a model in an agent would read. Structured output is checked
// against the output schema before it is sent; what a tool reports with
// agentkit.ReportProgress reaches the client as notifications/progress. An output with more
// than text (images, audio, resources) implements [Contenter]; a tool reaches the MCP
// request it serves, and its session, with [RequestFromContext].
//
// The package reads no environment variables and makes no network call but to the servers
// it is given.
package mcp
