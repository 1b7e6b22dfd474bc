// Package memory gives agents a memory across runs and a context window that does not
// overflow: session stores, offline token counting, and strategies that choose what the
// model is sent from a long history without ever breaking a tool call from its results.
//
// # Sessions
//
// A session is one conversation, stored as the append-only list of its messages. With
// agentkit.Options.Memory set, Agent.RunSession loads the session, runs the new user message,
// and appends every completed step (an assistant message with all its tool results, in one
// Append) as it goes, so a crash loses nothing already done:
//
//	store := memory.NewInMemory()
//	agent := agentkit.New(client, &agentkit.Options{Memory: store, …})
//	res, err := agent.RunSession(ctx, sessionID, "上海呢？")
//
// [InMemory] is the zero-configuration store; it serializes the runs of one session
// ([Locks]). Package memory/sqlite keeps sessions in a SQLite file (a package of its own, so
// that importing memory never links the SQLite driver); memory/memorytest is the conformance
// kit for other stores. With a [Window] of MaxTurns as the Context, a store that is an
// agentkit.RecentLoader (both are) reads only the first user message and the turns the window
// may send (and the one before them), so a run costs the same at turn 1,000 as at turn 20.
//
// Both stores keep paused runs too (agentkit.Pause): each is an agentkit.Ledger, for
// agentkit.Options.Ledger (Resume claims a pause there, so it runs once), and an
// agentkit.PauseStore, where a paused RunSession keeps its state until Agent.ResumeSession
// takes it, once. An InMemory's claims and pauses last as long as it does; the SQLite
// store's are on disk and shared by the processes that open the file.
//
// # Tokens
//
// [Counter] counts tokens offline the way OpenAI bills them — message framing, names, tool
// calls, tool definitions — with the tokenizer of the model's family (o200k_base or
// cl100k_base, from github.com/tiktoken-go/tokenizer), and cl100k_base as the documented
// estimate for other models. Per-message counts are cached: strategies count before every
// request.
//
// # What the model is sent
//
// An agentkit.ContextStrategy (Options.Context) picks the view sent before every request from
// the run's transcript, which itself is never shortened. The strategies here cut only between
// turns — a turn is a user message and everything up to the next one — and always keep the
// system prompt and the first user message (the task):
//
//   - [Window] keeps the latest turns that fit in a token budget, or the latest N turns
//     (MaxTurns, which costs no counting), or both.
//   - [ClearToolResults] replaces the old tool results with a short placeholder, leaving the
//     calls and their pairing in place.
//   - [Fold] folds the oldest turns into one structured summary when the estimate passes a
//     trigger — the task and the user's constraints, the facts learned from tools, the
//     decisions taken, the open items — written by a [Summarizer] (a model call by default,
//     [ModelSummarizer]), incrementally and in batches, so that summarizing is rare.
//   - [Chain] composes them: Chain(Fold(…), ClearToolResults(2), Window(…)).
//
// Each keeps the prompt cache warm. Providers bill the part of a request that repeats the
// previous request's beginning at a tenth of the price or less (OpenAI from 1,024 tokens on,
// in steps of 128), so a strategy that changed the front of the view on every request would
// pay for all of it every time. The strategies change it in blocks instead, at boundaries
// that stay put between two cuts: Window drops turns many at a time (WindowOptions.Block,
// Target), ClearToolResults clears results every few turns, Fold folds a batch down to its
// Target; between two cuts each request's view begins with the previous one's, message for
// message, so the same bytes are sent. The boundaries are decided from the history alone, no
// state kept, so they are the same after a restart, in another process, and (for Window) in
// a session loaded in part. BENCHMARKS.md measures it on a 200-turn conversation: every
// strategy, with the settings there (a window of 20 turns or 8,000 tokens), keeps more than
// 85% of the prompt tokens cacheable. A window of a few turns keeps less (about 75% with
// MaxTurns 8, under half with MaxTurns 4): its first turn moves every turn or two, and its
// view is not far above the 1,024 tokens below which nothing is cached.
//
// A budget smaller than what must be kept is an error wrapping [ErrBudgetTooSmall], never a
// silent overflow; a failed summary leaves the request as the previous fold left it. Every
// view passes agentkit.ValidateHistory.
//
// # Nothing is lost
//
// What a strategy leaves out stays in the store. [RecallTool] gives the model the tool
// recall_history, to search the stored history of its own session (the run's, which
// RunSession puts in its context) for the exact detail a summary left out.
package memory
