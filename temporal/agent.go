package temporal

import (
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/toolcall/toolcall/agentkit"
)

// The names this package registers on a worker and that clients use.
const (
	// WorkflowName is the name of the run workflow: start it with an Input.
	WorkflowName = "toolcall.Run"
	// UpdateDecide is the update that delivers the []agentkit.Decision for the calls that
	// wait (QueryPending lists them); it returns an error wrapping agentkit.ErrDecision, and
	// changes nothing, when the decisions do not match them, and refuses a deferred result
	// that begins with BlobPrefix.
	UpdateDecide = "toolcall.decide"
	// QueryPending is the query that returns the []agentkit.PendingCall the run waits for
	// (none when it waits for nothing).
	QueryPending = "toolcall.pending"
	// QueryTranscript is the query that returns the transcript as the last turn ended
	// ([]openai.ChatCompletionMessage, large results by reference): provider-valid, never
	// a turn whose calls run or wait for a decision.
	QueryTranscript = "toolcall.transcript"

	modelActivity    = "toolcall.Model"
	toolActivity     = "toolcall.Tool"
	approvedActivity = "toolcall.Approved"
)

// Options configures an Agent. A nil *Options, or the zero Options, is valid: every field
// documents its default. New copies the Options.
//
// Every field but Blobs shapes the workflow's commands (timeouts, retry policies, when it
// continues as new): change one under running workflows only behind workflow.GetVersion.
type Options struct {
	// ModelTimeout bounds one attempt of a model call (the activity's start-to-close
	// timeout). Zero means 2 minutes.
	ModelTimeout time.Duration
	// ModelAttempts is the attempts of a model call: a model call is retried, with
	// exponential backoff from one second, unless it failed with a 4xx status other than
	// 408 and 429, or its reply was unusable. Zero means 5.
	ModelAttempts int
	// ToolTimeout bounds one attempt of a tool call (start-to-close). Zero means 10 minutes.
	ToolTimeout time.Duration
	// HeartbeatTimeout is how long a model or tool call's worker may stay silent before the
	// call is taken for lost (its worker died): an activity heartbeats every third of it
	// while the call runs (the SDK sends one to the server at most every 0.8 × it). It is
	// also about how soon a cancellation reaches a running tool. Zero means 30 seconds.
	HeartbeatTimeout time.Duration
	// ToolAttempts is the attempts of a call of an idempotent or read-only tool
	// (tool.Annotations.IsIdempotent). Every other call is attempted once. Zero means 3.
	ToolAttempts int
	// Blobs keeps the tool results of more than BlobThreshold bytes out of the workflow's
	// history: the history holds a reference (see Resolve). Nil keeps every result inline,
	// where Temporal's 2 MiB payload limit applies (bound results with middleware.Truncate):
	// a result that would take the transcript past 1.5 MiB is then lost, and the model reads
	// that the call ran and took effect but its result was too large.
	// When Put fails, the call has run all the same: an idempotent call is attempted again,
	// and the model reads of any other that it took effect but its result was lost.
	Blobs BlobStore
	// BlobThreshold is the size past which a result goes to Blobs. Zero means 256 KiB. A
	// smaller result goes there too when the transcript, inline, would pass 1.5 MiB (see the
	// package doc, Payload limits).
	BlobThreshold int
	// ContinueAfter is the number of model calls after which a run continues as new (the
	// transcript, its counters and the loop guard carried over), so that a long session's
	// history stays small; a run also continues as new when Temporal suggests it (its
	// history's size or length). Each model call's input is the whole transcript, so a
	// history grows with the square of the turns: keep this small. Zero means 20.
	ContinueAfter int
}

// Agent runs an agentkit.Agent's loop as a Temporal workflow: Register it on a worker, and
// start WorkflowName with an Input. Every worker of the task queue must register an Agent
// of the same configuration: the workflow's decisions depend on it (like on code).
type Agent struct {
	agent *agentkit.Agent
	opts  Options
}

// New returns the durable form of agent. It panics when agent is nil, or sets an option
// the workflow does not apply (agentkit.Agent.RunOnly: Output, RunMiddleware), which
// a run would otherwise go without, silently.
func New(agent *agentkit.Agent, opts *Options) *Agent {
	if agent == nil {
		panic("temporal.New: nil *agentkit.Agent")
	}
	if names := agent.RunOnly(); len(names) > 0 {
		panic("temporal.New: the agent sets agentkit.Options." + strings.Join(names, ", ") + ", which the workflow does not apply (see the package doc)")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	for _, d := range []struct {
		p *time.Duration
		v time.Duration
	}{{&o.ModelTimeout, 2 * time.Minute}, {&o.ToolTimeout, 10 * time.Minute}, {&o.HeartbeatTimeout, 30 * time.Second}} {
		if *d.p <= 0 {
			*d.p = d.v
		}
	}
	for _, d := range []struct {
		p *int
		v int
	}{{&o.ModelAttempts, 5}, {&o.ToolAttempts, 3}, {&o.BlobThreshold, 256 << 10}, {&o.ContinueAfter, 20}} {
		if *d.p <= 0 {
			*d.p = d.v
		}
	}
	return &Agent{agent: agent, opts: o}
}

// Register registers the workflow and its activities on w (a worker.Worker, or a test
// environment of go.temporal.io/sdk/testsuite).
func (a *Agent) Register(w worker.Registry) {
	w.RegisterWorkflowWithOptions(a.Workflow, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(a.model, activity.RegisterOptions{Name: modelActivity})
	w.RegisterActivityWithOptions(a.tool, activity.RegisterOptions{Name: toolActivity})
	w.RegisterActivityWithOptions(a.approved, activity.RegisterOptions{Name: approvedActivity})
}

// Input is the workflow's argument. For a new run, set Messages to the history ending with
// the user's message (NewInput makes one of a text); the agent's Instructions are
// prepended as in agentkit.Agent.RunMessages; Budget may give the run a budget of its
// own. The other fields carry a run over when it continues as new.
type Input struct {
	// Messages is the history; for a continued run, the transcript.
	Messages []openai.ChatCompletionMessage `json:"messages"`
	// Continued is set on a run continued as new: Messages is then the transcript as is.
	Continued bool `json:"continued,omitempty"`
	// New is Result.New of the run continued.
	New int `json:"new,omitempty"`
	// Iterations are the model calls made before.
	Iterations int `json:"iterations,omitempty"`
	// Usage is the token usage before.
	Usage agentkit.Usage `json:"usage"`
	// Cost is the cost before.
	Cost agentkit.Cost `json:"cost"`
	// Guard is the loop guard's state.
	Guard agentkit.GuardState `json:"guard"`
	// Budget, when not nil, is the run's budget instead of the agent's Options.Budget, whole
	// (a zero field is no limit, whatever the agent's), as agentkit.WithBudget gives a run
	// one. A run continued as new keeps it.
	Budget *agentkit.Budget `json:"budget,omitempty"`
	// Used is, for a run continued as new, what the run used of its budget before (nil when
	// its budget limits nothing).
	Used *agentkit.BudgetUse `json:"used,omitempty"`
	// Began is, with Used, when the run began on the workflow's clock, shifted by the time
	// it waited for decisions: its wall time counts from it, across continue-as-new.
	Began time.Time `json:"began,omitzero"`
}

// NewInput returns the Input of a run on one user message.
func NewInput(text string) Input {
	return Input{Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: text}}}
}

// Result is the workflow's result: the serializable part of agentkit.Result. (The rest —
// Steps with every call's typed output and error value — holds Go values that do not
// survive a trip through a payload; the transcript holds what the model read.)
//
// The workflow completes with a Result on every stop, a cancellation included (Stop is
// then agentkit.StopCanceled), so that the partial transcript is never lost; it fails only
// when the workflow itself breaks (a panic, a nondeterminism error).
type Result struct {
	// Output is the answer (see agentkit.Result.Output).
	Output string `json:"output"`
	// Messages is the transcript: provider-valid, tool results over Options.BlobThreshold
	// by reference (see Resolve).
	Messages []openai.ChatCompletionMessage `json:"messages"`
	// New is the index in Messages of the first message the run added.
	New int `json:"new"`
	// Stop says why the run ended.
	Stop agentkit.StopReason `json:"stop"`
	// Error is the text of the error agentkit.Run would have returned; empty exactly when
	// the run produced an answer.
	Error string `json:"error,omitempty"`
	// Usage sums the token usage of every model call.
	Usage agentkit.Usage `json:"usage"`
	// Cost sums the cost of every model call (agentkit.Options.Prices) and what the tool
	// calls reported (agentkit.ReportCost), as agentkit.Result.Cost does.
	Cost agentkit.Cost `json:"cost"`
	// Iterations is the number of model calls made.
	Iterations int `json:"iterations"`
	// Limit is, for Stop agentkit.StopBudget, the limit of the run's budget that stopped it
	// (see agentkit.Result.Limit).
	Limit agentkit.BudgetLimit `json:"limit,omitempty"`
}
