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
// [When] applies a middleware to the calls a predicate accepts, and [Destructive],
// [Idempotent] and [ReadOnly] read a tool's annotations (tool.Options.Annotations, or an MCP
// server's own): When(Destructive, Approve(...)) asks before destruction,
// When(Idempotent, Retry(nil)) retries only what may repeat.
//
// [Approve] blocks the call while an approver in the same process answers. [RequireApproval]
// is its asynchronous counterpart, for approvers who answer in hours from another process:
// a call its predicate accepts is validated and not run, its result tool.Pending, and the
// agent loop pauses the run (agentkit.Pause) until Agent.Resume brings the decision. Place
// it where Approve would go: RequireApproval(Destructive) pauses by MCP annotations, an
// allow-list predicate by the application's own decision.
//
// Every failure a middleware produces is a tool.Result the model reads (Kind set, Content
// written for the model, Err for the application), never a Go error that ends the run; what
// shortens or rewrites content keeps the tool's own output in Result.Original. Middleware
// that reads arguments ([Check], [Approve], [Log]) sees exactly what tool.Tool.Arguments
// returns — what the tool runs with — never the raw text; every JSON value read here is
// bounded in size and nesting. [Timeout] runs the rest of the chain on a context.WithTimeout
// context and abandons a tool that ignores it past the deadline: the one exception to Run
// waiting for every goroutine it starts.
//
// Model middleware (agentkit.ModelMiddleware) wraps the model's plain and streamed calls alike,
// first listed outermost: with ModelRetry outside ModelTimeout each attempt has its own
// deadline. Give an *openai.Client's HTTP client [Transport]: ModelRetry then honors a 429's
// Retry-After, a 200 that carries an error object is the error it is, and bodies are bounded
// (go-openai sees none of this).
//
// Per-run settings travel in the run's context, since an Agent and its middleware are shared
// by concurrent runs: the tools allowed for this caller ([WithAllowedTools]) and a character
// budget shared by the results of a turn ([WithBudget], [ResetBudgetEachTurn]).
package middleware
