// Package middleware provides the built-in middleware of toolcall: tool middleware
// (tool.Middleware, one constructor per file) for production safety, and model middleware
// (agentkit.ModelMiddleware, the files model_*.go) for retries, timeouts and logs of model
// calls.
//
// Tool middleware wraps the handler that runs one tool call, the way net/http middleware
// wraps an http.Handler. agentkit.Options.Middleware lists it outermost first, as tool.Chain
// does: the first sees the call first and the result last. A typical stack, and the onion it
// makes:
//
//	agent := agentkit.New(client, &agentkit.Options{
//		Tools: tools,
//		Middleware: []tool.Middleware{
//			middleware.Log(logger, &middleware.LogOptions{Redact: []string{"password"}}),
//			middleware.WrapErrors(nil),
//			middleware.Truncate(4000),
//			middleware.AllowFromContext(),
//			middleware.Check("transfer", middleware.Range("amount", 0.01, 1000)),
//			middleware.Approve(askHuman, &middleware.ApproveOptions{Tools: []string{"transfer"}}),
//			middleware.Retry(nil),
//			middleware.Timeout(10 * time.Second),
//			middleware.Structure(),
//		},
//		ModelMiddleware: []agentkit.ModelMiddleware{
//			middleware.ModelLog(logger),
//			middleware.ModelRetry(nil),
//			middleware.ModelTimeout(60 * time.Second),
//		},
//	})
//
//	call ──▶┌ Log ───────────────────────────────────────────────┐
//	        │ ┌ WrapErrors ──────────────────────────────────────┐ │
//	        │ │ ┌ Truncate ──────────────────────────────────────┐ │ │
//	        │ │ │ ┌ AllowFromContext, Check, Approve ──────────┐ │ │ │
//	        │ │ │ │ ┌ Retry ─────────────────────────────────┐ │ │ │ │
//	        │ │ │ │ │ ┌ Timeout ───────────────────────────┐ │ │ │ │ │
//	        │ │ │ │ │ │ ┌ Structure ─────────────────────┐ │ │ │ │ │ │
//	        │ │ │ │ │ │ │  tool (tool.Handle, or the     │ │ │ │ │ │ │
//	        │ │ │ │ │ │ │  loop's unknown-tool answer)   │ │ │ │ │ │ │
//	        │ │ │ │ │ │ └────────────────────────────────┘ │ │ │ │ │ │
//	        │ │ │ │ │ └────────────────────────────────────┘ │ │ │ │ │
//	        │ │ │ │ └────────────────────────────────────────┘ │ │ │ │
//	        │ │ │ └────────────────────────────────────────────┘ │ │ │
//	        │ │ └────────────────────────────────────────────────┘ │ │
//	        │ └────────────────────────────────────────────────────┘ │
//	result ◀└────────────────────────────────────────────────────────┘
//
// Why this order:
//
//   - Log outermost records every call with the result the model finally reads, refusals
//     included, and its duration covers the whole chain.
//   - WrapErrors outside everything that fails (policies, Timeout, the tool) puts each of
//     their failures in its envelope; outside Truncate, so the envelope is never cut.
//   - Truncate outside Structure caps the lines Structure wrote, not the JSON they came from.
//   - The policies and Approve refuse before any attempt runs, and before Retry could repeat
//     a refusal; Approve last among them, so a human is never asked about a call a policy
//     refuses.
//   - Retry outside Timeout gives each attempt its own deadline; swap them to bound all
//     attempts together.
//
// Every failure a middleware produces is a tool.Result the model reads (Kind set, Content
// written for the model, Err for the application), never a Go error that ends the run.
// Middleware that shortens or rewrites content keeps the tool's own output in
// Result.Original, which the run's record holds.
//
// Middleware that reads arguments ([Check], [Approve], [Log]) sees the validated arguments,
// exactly as tool.Tool.Arguments returns them (repaired, one JSON object: what the tool runs
// with), never the raw text the model sent. Check and Approve give a call the tool would
// refuse the tool's own result; Log shows such a call's raw text, cut, only when
// LogOptions.Redact is empty, and never parses it. Every JSON value this package parses is
// bounded in size and nesting, so no input can exhaust the stack: arguments by the tool's
// ArgumentLimit and 64 levels, the results [Structure] rewrites by 1 MiB and 32 levels
// (larger or deeper ones pass through unchanged).
//
// [Timeout] runs the rest of the chain in a goroutine, on a context.WithTimeout context, and
// answers at the deadline even if the tool ignores its context; such a tool's goroutine is
// abandoned, the one exception to agentkit's Run waiting for every goroutine it starts.
//
// Model middleware wraps agentkit.Model in the same way, first listed outermost. With
// ModelRetry outside ModelTimeout each attempt has its own deadline and a timed-out attempt
// is retried. For ModelRetry to honor the Retry-After header of a 429 or 503 from an
// *openai.Client, give the client [RetryAfterTransport] (go-openai does not expose headers
// on its errors).
//
// Per-run settings travel in the context passed to agentkit.Agent.Run, since an Agent and its
// middleware are shared by concurrent runs: the tools allowed for this caller
// ([WithAllowedTools]) and a character budget shared by the results of one turn ([WithBudget],
// [ResetBudgetEachTurn]).
package middleware
