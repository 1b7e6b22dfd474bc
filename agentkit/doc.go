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
// The history is go-openai's []openai.ChatCompletionMessage (github.com/sashabaranov/go-openai).
// The SDK's HTTP Model, package openaichat, speaks the chat-completions wire to any
// OpenAI-compatible server and keeps what providers send on a message and want back
// ([ProviderExtras]: reasoning_details, thought signatures), and the usage they report
// ([Usage]: cached, cache-write and reasoning tokens). A *openai.Client is a [Model] as it is,
// without those; a fake model is a [ModelFunc], or the scripted model of package agentkittest.
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
//   - What a provider sent on a message and wants back ([ProviderExtras]) stays on the message
//     through the transcript, sessions and context strategies, and goes back unchanged.
//   - Run returns a [Result] on every path, with the transcript so far, the steps (every model
//     call and tool call with durations, error kinds and repairs), summed usage and a
//     [StopReason]. A canceled run returns, once its calls have ended, with a valid transcript.
//
// # Typed answers
//
// A service that wants the answer as a Go value, after the tools, sets Options.Output:
//
//	agent := agentkit.New(client, &agentkit.Options{
//		Tools:  []*tool.Tool{search, lookup},
//		Output: agentkit.Output[Invoice](nil),
//	})
//	res, err := agent.Run(ctx, "开一张发票给 ACME，金额按上个月的用量")
//	inv, ok := agentkit.ValueOf[Invoice](res) // the validated Invoice; res.Output its JSON
//
// Invoice's schema is reflected as a tool's input is. By default (OutputTool) the model
// gets an output tool, final_answer, whose arguments are the answer: it is offered, never
// forced. OutputNative sends response_format json_schema instead (strict with
// OutputOptions.Strict), OutputPrompt asks for the JSON in the system prompt. In every mode
// the answer goes through package tool's stages (repair, parse, validate, decode); one that
// fails goes back to the model with its violations, within Options.MaxIterations, and a run
// whose model answered but never validly ends with ErrOutputInvalid. FinalAnswerOnLimit's
// final request asks for the value too; streamed runs emit EventOutputPartial with the
// answer so far.
//
// # Streaming, sessions, run middleware
//
// Each way to run has a streamed form: Run and RunStream (one user message), RunMessages and
// RunMessagesStream (a history), RunSession and RunSessionStream (a stored conversation). A
// streamed run's events are text deltas, tool calls announced and ready, results, step ends
// and the answer, and a call starts as soon as its arguments are complete; the model streams
// when it is a [StreamingModel] ([OpenAIStreaming] adapts a *openai.Client). The [Assembler]
// rebuilds messages from chunks the way real providers send them.
//
// [Agent.RunSession] loads and saves a conversation through Options.Memory — a chat kept in
// this process is a session of memory.NewInMemory — and Options.Context chooses what the
// model is sent from a long one (package memory); a strategy that sends only the latest
// turns ([TurnLimiter]) lets a [RecentLoader] store load only those. Options.ModelMiddleware
// wraps the model's calls, plain and streamed ([ModelMiddleware], connect-go's interceptor
// shape, so no middleware turns streaming off); Options.RunMiddleware wraps whole runs (a
// tracing span, for one).
//
// Tools whose list changes while an Agent lives — an MCP server's, through package mcp — are
// a [Toolset] in Options.Toolsets, asked for its tools before each request: a change lands
// between turns, never in the middle of one. [Agent.Tool] makes an agent one tool of another
// (a sub-agent), or of an MCP server.
//
// # Runs that pause
//
// A call that needs a decision from outside the run — a person's approval, taken in hours
// from another process, or the result of a tool the application runs itself — does not run:
// its result is tool.KindPending (tool.Options.RequireApproval, middleware.RequireApproval,
// tool.Deferred). The turn's other calls run; then the run stops with StopPaused and
// ErrPaused, and Result.Pause holds a [Pause]: the transcript up to the assistant message
// with the calls (kept only there, so that no history a provider sees has unanswered calls),
// the results of the calls that ran, each pending call with its canonical validated
// arguments, and the run's counters. A Pause is versioned JSON (PauseVersion;
// testdata/pause holds one of each version, and every one still resumes), signed with
// Options.PauseKey (HMAC-SHA256) when it leaves the server.
//
// [Agent.Resume] continues it with a [Decision] per pending call — approve, approve with
// edited arguments (validated again), reject with a message for the model, or give a
// deferred call its result — in this process or another. Before anything runs it checks
// the version, the signature (ErrPauseTampered), the state and the decisions, and claims the
// pause in Options.Ledger: a state resumed twice, or concurrently, runs its approved calls
// once (ErrAlreadyResumed). The approved calls go through the whole middleware chain with
// the approval in their context (tool.Approved); the model reads every decision; the loop
// goes on within the run's bounds. A RunSession that pauses keeps its Pause in the session's
// store ([PauseStore]); [Agent.ResumeSession] takes it back once, also after a restart, and
// until then the session refuses new messages (ErrSessionPaused). ResumeStream and
// ResumeSessionStream stream the resumed run.
//
// # How a run is built
//
// One path per stage. Before every request the whole request is checked with
// [ValidateHistory] (its cost, microseconds per hundred messages, is nothing beside a model
// call). A reply is normalized (ids made unique, arguments made JSON) and appended; its calls
// run in a turn: the parallel ones under a semaphore of Options.MaxConcurrency, each in a
// goroutine of its own but the last, which runs on the loop's goroutine; sequential ones after
// them, in order; results by index, a recover per call; the run waits for every goroutine it
// starts (middleware.Timeout, which abandons a call
// past its deadline, is the one exception). What an iteration appended is saved to the
// session in one Append. An Agent holds nothing that changes after New.
//
// # Cost and budgets
//
// Every [Step] has the model call's [Usage] as the provider reported it (prompt, cached,
// cache-write, completion and reasoning tokens) and its [Cost] under Options.Prices, a
// [Prices] table the application supplies (the SDK ships no prices: they change); a tool
// reports what it spent with [ReportCost] (CallRecord.Cost); Result.Usage and Result.Cost
// sum the run. A model without a price is an unknown cost, never 0: Cost.Known is false and
// Amount a lower bound. Options.UsageRecorder receives every model call's and every turn's
// spend with the run's session; a [Meter] sums them per session in memory.
//
// Options.Budget (or, per run, [WithBudget]) bounds a run's model calls, tool calls,
// tokens, cost and wall time in one [Budget]; the first limit exhausted stops the run with
// StopBudget and a [*BudgetError] naming it, or, with Options.FinalAnswerOnLimit, asks for
// the final answer in one tool-free request. A run never begins a model call past a limit
// reached before it: at most one call — the one that crossed the limit — is spent past it.
// A Cost limit holds for the agents the run calls as tools too, which spend from what it
// has left.
//
// # Observing a run
//
// Options.OnEvent receives model requests and responses, tool starts and ends, and the
// progress a running call reports ([ReportProgress]: an MCP server's notifications/progress);
// Options.Logger logs the model requests (with their messages), the responses and the run's
// end at Debug level, and middleware.Log the tool calls. [FormatTranscript] renders a history
// for humans.
package agentkit
