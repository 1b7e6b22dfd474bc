// Package agentkit runs the tool-calling loop of an LLM agent.
//
// The model never executes a tool. It emits calls (a name and JSON arguments); the agent runs
// them through the tool middleware, appends each result as a role=tool message carrying the
// call's tool_call_id, and sends the whole history back, until the model answers without
// calling tools:
//
//	agent := agentkit.New(client, &agentkit.Options{
//		Model:        "gpt-4o-mini",
//		Instructions: "你是一个乐于助人的智能助手，可以通过工具获取实时信息。",
//		Tools:        []*tool.Tool{weather, calculator},
//	})
//	res, err := agent.Run(ctx, "北京天气怎么样？顺便帮我算一下 123.45 * 678")
//
// A *openai.Client from github.com/sashabaranov/go-openai is a [Model] as it is, pointed at any
// OpenAI-compatible server by its BaseURL; a fake model is a [ModelFunc], or the scripted model
// of package agentkittest.
//
// # What the loop guarantees, with no options
//
//   - Every tool failure is a result the model reads, never the end of the run: invalid JSON
//     (after repairing what can be repaired safely), schema violations with their paths, an
//     unknown tool (with the available ones and the nearest name), a returned error, a panic.
//     Only a tool error marked with tool.Fatal ends the run.
//   - The calls of one turn run concurrently (Options.MaxConcurrency, default 8) and their
//     results are appended in the order the model emitted the calls, each with its own
//     tool_call_id; tools marked Sequential run one at a time.
//   - The history is always provider-valid ([ValidateHistory]): it is checked before every
//     request, so a broken history is our error, not a provider's HTTP 400. Calls without an
//     id, with a duplicate id, or with arguments that are not JSON are normalized before they
//     are replayed.
//   - The run is bounded: at most Options.MaxIterations model calls (default 8), and the same
//     calls repeated turn after turn are refused (Options.LoopLimit) and then stop the run
//     (Options.LoopStop).
//   - Temperature defaults to 0 and reaches the wire ([WireZeroTemperature]); reasoning models
//     that refuse it get none.
//   - Run returns a [Result] on every path, with the transcript so far, the steps (every model
//     call and tool call with durations, error kinds and repairs), summed usage and a
//     [StopReason]. A canceled run returns at once with a valid transcript.
//
// # Streaming, sessions, run middleware
//
// [Agent.RunStream] streams the model's reply (a [StreamingModel]; [OpenAIStreaming] adapts a
// *openai.Client): its events are text deltas, tool calls announced and ready, results, step
// ends and the answer, and a call starts as soon as its arguments are complete. The
// [Assembler] rebuilds messages from chunks the way real providers send them.
// [Agent.RunSession] loads and saves a conversation through Options.Memory, and
// Options.Context chooses what the model is sent from a long one (package memory);
// Options.SessionTurns lets the Memory load only the turns a window sends. A
// [Conversation] keeps a chat in this process instead: its transcript is checked as it grows
// and never copied, so a turn costs what it adds, where RunMessages copies and checks the
// whole history it is given.
// Options.RunMiddleware wraps whole runs (a tracing span, for one).
//
// # Observing a run
//
// Options.OnEvent receives model requests and responses and tool starts and ends;
// Options.Logger logs them at Debug level, with each request's messages. [FormatTranscript]
// renders a history for humans.
package agentkit
