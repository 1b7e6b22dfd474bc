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
// The packages:
//
//   - tool: tools are typed Go functions. tool.New[In, Out] reflects the JSON Schema of In
//     once; each call's arguments are repaired when a model mangled them (markdown fences,
//     trailing commas, single quotes…), validated before the function runs, and every failure
//     becomes a result the model can act on. Handler and Middleware are the types in the
//     middle.
//   - agentkit: the loop. agentkit.New(model, opts).Run(ctx, input) runs it with parallel,
//     ordered tool execution, a bounded number of iterations, loop detection, a history that
//     is validated before every request, and a Result (transcript, steps, usage, stop reason)
//     on every exit path. A *openai.Client (github.com/sashabaranov/go-openai) is a Model as it
//     is, so any OpenAI-compatible server works by changing its BaseURL.
//   - agentkit/agentkittest: a scripted model (plain and streaming) for testing agents offline.
//   - middleware: production middleware for tool calls (Timeout, Truncate, Structure,
//     WrapErrors, Retry, Allow/Deny, Check, Approve, Log), for model calls (ModelRetry with
//     Retry-After, ModelTimeout, ModelLog) and OpenTelemetry spans (NewTracing).
//   - memory: sessions in memory for agent.RunSession, offline token counting, and context
//     strategies (Window, ClearToolResults, Fold into a summary) that keep long
//     conversations within budget without breaking a tool call from its results;
//     memory/memorytest is the conformance kit for stores.
//   - memory/sqlite: sessions in a SQLite file, shared by processes (sqlite.Open), apart so
//     that importing memory does not link the SQLite driver.
//
// Streaming: agent.RunStream yields text deltas, tool calls as they are announced and
// completed, their results and the answer; calls start while the model is still streaming.
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
// The SDK reads no environment variables, keeps no global state and makes no network call of
// its own: the Model you pass makes them.
package toolcall
