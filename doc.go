// Package toolcall is an embeddable Go SDK for LLM agents that call tools.
//
// The model never executes a tool. It emits a call — a tool name and JSON arguments — and
// our code executes it, feeds the result back as a role=tool message carrying the call's
// tool_call_id, and sends the whole history again, until the model answers without calling
// tools. Every production failure lives in that half of the loop: malformed JSON,
// hallucinated tools and parameters, tool errors and panics, huge outputs, parallel results
// crossing wires, endless loops, histories a provider rejects. toolcall makes each of them a
// handled, tested, visible case, on by default.
//
// The architecture, one path per stage:
//
//   - tool: a tool is a typed Go function (tool.New[In, Out]; tool.Raw for a schema given
//     as data). Its arguments pass four stages, each one implementation on a well-kept
//     library: repair (github.com/kaptinlin/jsonrepair, with a size cap and checks that
//     meaning is kept and nothing cut off is completed), parse (jsontext: duplicate keys,
//     invalid UTF-8, depth and size refused), validate (santhosh-tekuri/jsonschema), decode
//     (encoding/json/v2's reference implementation, exact names). Tool.Arguments returns the
//     canonical object a tool runs with, which approvers, checkers and loggers see too.
//   - agentkit: the loop. Run, RunMessages and RunSession, each with its streamed form. Each
//     request is checked whole (ValidateHistory) before it is sent; a reply is normalized
//     and appended; its calls run in a turn — parallel ones under a semaphore, sequential ones
//     after, results by position, a recover per call — and the run waits for every goroutine
//     it starts. Model middleware wraps plain and streamed calls
//     alike (connect-go's interceptor shape), so none turns streaming off. A run whose calls
//     need a person's approval (or a deferred tool's result) pauses with a signed, versioned
//     state and resumes exactly once, in another process if need be (Agent.Resume,
//     ResumeSession); tools whose list changes (an MCP server's) are a Toolset. A typed
//     final answer (Options.Output, agentkit.Output[T]) is repaired and validated by tool's
//     stages; cost comes from a price table the caller supplies (Options.Prices), never as 0
//     when unknown, and one run budget (Options.Budget) bounds model calls, tool calls,
//     tokens, cost and wall time.
//   - middleware: tool middleware (Timeout on context.WithTimeout, Truncate, Structure,
//     WrapErrors, Retry, Allow/Deny, Check, Approve, RequireApproval, When, Log) and model middleware (ModelRetry
//     with Retry-After, ModelTimeout, ModelLog); middleware/otelgenai adds OpenTelemetry spans.
//   - memory: sessions for RunSession (InMemory; memory/sqlite on disk, fenced for several
//     processes), offline token counting, and context strategies (Window, ClearToolResults,
//     Fold) that keep long conversations within budget without separating a tool call from
//     its results, and that move the front of a request in blocks so the provider's prompt
//     cache stays warm; memory/memorytest is the conformance kit for stores.
//   - openaichat: the HTTP Model — the chat-completions wire with go-openai's types, plus what
//     they cannot carry: provider extras sent back unchanged (agentkit.ProviderExtras), SSE
//     error events, [DONE] told from a cut connection, request extras (prompt_cache_key,
//     OpenRouter's routing and reasoning options), usage as reported, bounded replies.
//   - agentkit/agentkittest: a scripted model (plain and streaming) for tests.
//   - trace: a run, or a stored session, as one self-contained HTML page.
//   - Modules of their own, so that their dependencies stay out of the SDK's: mcp (on the
//     official MCP go-sdk: any MCP server's tools in an agent, and tools and agents served
//     over MCP), memory/postgres and memory/redis (session stores for a fleet), temporal
//     (the loop as a Temporal workflow: model and tool calls as activities).
//
// A quick start:
//
//	weather := tool.New("get_weather",
//		"查询指定城市的当前天气。当用户询问天气、温度、是否下雨时使用。",
//		func(ctx context.Context, in struct {
//			City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
//		}) (string, error) {
//			return lookup(in.City)
//		})
//	agent := agentkit.New(client, &agentkit.Options{
//		Model:        "gpt-4o-mini",
//		Instructions: "你是一个乐于助人的智能助手，可以通过工具获取实时信息。",
//		Tools:        []*tool.Tool{weather},
//	})
//	res, err := agent.Run(ctx, "北京天气怎么样？")
//	fmt.Println(res.Output)
//
// client is an openaichat.New("https://api.openai.com/v1", &openaichat.Options{APIKey: key}):
// any OpenAI-compatible server works by changing the base URL. A *openai.Client
// (github.com/sashabaranov/go-openai) is an agentkit.Model as it is too. The SDK reads no environment
// variables, keeps no global state and makes no network call of its own: the Model you pass
// makes them.
package toolcall
