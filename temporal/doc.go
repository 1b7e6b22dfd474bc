// Package temporal runs toolcall's agent loop as a Temporal workflow (go.temporal.io/sdk),
// so that a run outlives its process: long tool calls, approvals that take days, a deploy in
// the middle. It is an integration, not an engine: Temporal keeps the state; this package
// decides what the workflow does, with agentkit's own stages.
//
//	durable := temporal.New(agent, &temporal.Options{Blobs: temporal.DirBlobs("/var/lib/blobs")})
//	w := worker.New(c, "agents", worker.Options{})
//	durable.Register(w)                     // the workflow and its three activities
//	w.Run(worker.InterruptCh())
//
//	run, _ := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "agents"},
//		temporal.WorkflowName, temporal.NewInput("北京天气怎么样？"))
//	var res temporal.Result
//	err := run.Get(ctx, &res)
//
// # The workflow
//
// Workflow code must be deterministic, so it cannot call agentkit.Agent.Run (which starts
// goroutines, reads the clock, calls the model). The workflow keeps the transcript and runs
// the loop itself, with agentkit's building blocks rather than copies of them:
//
//   - one model activity per model call: agentkit.Agent.ModelTurn builds the request as Run
//     does (system prompt, tool definitions, Options.Context, the final tool-free request),
//     sends it through the Agent's ModelMiddleware, and checks and normalizes the reply (ids,
//     JSON arguments). The request is built in the activity, not the workflow: a Toolset's
//     list and a context strategy may do I/O.
//   - agentkit.Agent.PlanTurn, pure, in the workflow: the loop guard, the cut-off replies,
//     Options.MaxToolCalls, the final turn; and agentkit.Agent.BudgetOver and BudgetTurn,
//     pure too, the run budget (see Budget below).
//   - one activity per tool call: agentkit.Agent.CallTool runs it through the Agent's
//     Middleware, so validation, repair, timeouts and approval policies apply as in
//     agentkit. The calls of a turn are scheduled together (their futures are read in
//     emission order, so results are appended in that order whatever ends first); calls of
//     Sequential tools run after them, one by one. The worker's activity slots bound how many
//     run at once (Options.MaxConcurrency is not used).
//
// The loop ends as agentkit's does, with the same stop reasons: an answer, the iteration
// limit or the budget (with its final tool-free request when Options.FinalAnswerOnLimit), a
// loop, a fatal tool error, a failed model call, a cancellation. The Result is the workflow's result on
// every one of them (see Result for what it keeps of agentkit.Result).
//
// Every worker of a task queue must register an Agent configured alike: what the workflow
// schedules depends on it as on code. TestReplayRecordedHistories replays histories recorded
// on a real server, so a change that would break running workflows fails a test; change
// configuration under running workflows behind workflow.GetVersion.
//
// # Retries follow the tool's nature
//
// A call of a read-only or idempotent tool (tool.Annotations.IsIdempotent) is attempted up
// to Options.ToolAttempts times; any other call once. A tool activity heartbeats while the
// tool runs, so a worker that dies is noticed after Options.HeartbeatTimeout: a call that
// was in flight on it is retried on another worker when that is safe, and otherwise never
// run again — the model reads UnknownOutcome, that the call is not known to have completed.
// A call that had completed is in the history and is not run again. A model call is retried
// (it has no effect on the world) with exponential backoff, except when it failed with a 4xx
// status other than 408 and 429 or its reply was unusable.
//
// # Approvals and deferred tools
//
// A call that waits for a decision (tool.Options.RequireApproval, middleware.RequireApproval,
// tool.Deferred) makes the workflow wait, as long as it takes, for the update UpdateDecide
// carrying one agentkit.Decision per waiting call; QueryPending (or Pending) lists them. An
// update rather than a signal, so that the caller gets an error back — the checks of
// agentkit.Resume, agentkit.CheckDecisions — and a refused set changes nothing. Decide sends
// one. Approved calls then run in an activity each (agentkit.Agent.CallApproved, with the
// approval in their context), retried by their tool's nature as above, those of Sequential
// tools one by one; rejected and deferred ones are answered as Resume answers them. No Pause,
// Ledger or PauseKey is involved: the workflow's history is the state, and a decision is
// taken once (a second Decide is refused).
//
// # Cancellation
//
// Canceling the workflow cancels its running activities; a tool activity learns it from the
// reply to a heartbeat (the SDK sends them at most every 0.8 × Options.HeartbeatTimeout, so
// within about that), which cancels the tool's context, and the workflow waits for it to end
// (WaitForCancellation). The run then
// completes with agentkit.StopCanceled and the transcript so far, each call canceled mid-way
// answered as canceled, so the history stays provider-valid.
//
// # Payload limits and long sessions
//
// Temporal limits a payload to 2 MiB and a history to 50 MiB, and the server terminates a run
// whose command carries a larger payload. The whole transcript is one: the input of each model
// activity, of a continue-as-new, and the Result. A tool result over Options.BlobThreshold
// (256 KiB) is put in Options.Blobs, a BlobStore of the user's (DirBlobs is one of files), and
// the history and transcript hold BlobPrefix and its key; so is a result of more than 1 KiB
// that would take the transcript past 1.5 MiB (a turn's calls share what is left). The model
// activity resolves references before each request, and Resolve does it for a caller. A
// model reply that would take the transcript past 1.5 MiB ends the run with
// agentkit.StopModelError and agentkit.ErrReplyTooLarge's text, as Options.MaxReplyBytes
// does in agentkit. What stays inline all the same: the model's messages, the results of
// deferred calls (they come with the decision), and, without Blobs, every result — one that
// would take the transcript past 1.5 MiB is then replaced by an error that says the call ran
// and its result is lost. After
// Options.ContinueAfter model calls, or when the server suggests it, the run continues as new,
// carrying the transcript, the counters and the loop guard in its Input.
//
// # Budget
//
// The workflow applies the run's agentkit.Budget as Run does, with agentkit's own judgement
// (agentkit.Agent.BudgetOver before each model call, agentkit.Agent.BudgetTurn on each
// turn's calls): the agent's Options.Budget, or Input.Budget, which replaces it whole as
// agentkit.WithBudget does. A limit exhausted stops the run with agentkit.StopBudget and
// Result.Limit, or, with Options.FinalAnswerOnLimit, makes the final tool-free request
// first; the calls of a turn past the tool calls left are answered not_executed. Model
// calls, tool calls, tokens and cost count across continue-as-new (Input.Used carries
// them). Wall time is the workflow's clock (workflow.Now, deterministic), counted from the
// start of the first run and carried across continue-as-new (Input.Began), as one run;
// the time the run waited for decisions is left out, as agentkit leaves out a pause's. It is
// checked before each model call: a run waiting in a long activity is not interrupted by
// it (bound those with the activity timeouts). What agents called as tools
// (agentkit.Agent.Tool) spend counts once their call ended, as their tool's cost; the
// caller's Cost limit does not reach into their runs inside the tool activity, as it does
// in agentkit.
//
// # What the workflow leaves out
//
// Of agentkit.Options, the workflow does not apply Output (typed answers) and RunMiddleware
// — New refuses an agent that sets them, which would change what a run returns — Memory
// and the session entry points (the workflow's history is the session: continue a
// conversation by starting a run on Result.Messages plus the next user message), nor Ledger
// and PauseKey, which it does not need. OnEvent and
// Logger receive what each activity emits — model requests and responses, tool starts and
// ends — in the worker process that ran it; there is no run-level event.
//
// # Streaming
//
// Not offered, by choice. A workflow's history records results, not progress: streaming
// tokens through it (signals, or activity heartbeat details, which the server throttles and
// keeps only the latest of) would cost a write per delta and still be lossy. The model
// activity makes a plain call. What a caller can follow is turn by turn: QueryTranscript
// returns the transcript as each turn ends. An application that must show tokens live
// streams them through a side channel of its own (a ModelMiddleware that publishes deltas to
// its pub/sub), outside the workflow, where losing one costs nothing.
package temporal
