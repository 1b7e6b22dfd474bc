package agentkit

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// Options configures an Agent. A nil *Options, or the zero Options, is valid: every field
// documents its default. New copies the Options; changing them afterwards has no effect.
type Options struct {
	// Model is the model name sent in every request, e.g. "gpt-4o-mini" or "deepseek-chat".
	Model string
	// Instructions is the system prompt, sent first. Empty sends none (unless the history
	// passed to RunMessages starts with its own system message).
	Instructions string
	// Tools are the tools the model may call. Names must be unique.
	Tools []*tool.Tool
	// Output, when set (see Output), makes the run end with a typed answer of the type it was
	// built for, validated, in Result.Value (read it with ValueOf). In tool mode its output
	// tool is offered beside Tools, and no tool may share its name. Nil: the answer is text.
	Output *OutputSpec
	// Toolsets provide more tools, whose list may change between requests (an MCP server's);
	// see Toolset. Their names must be unique, among them and with Tools.
	Toolsets []Toolset
	// Middleware wraps every tool call; the first is the outermost (see tool.Chain). It also
	// wraps calls of unknown tools, so logging and error envelopes see those too.
	Middleware []tool.Middleware
	// ModelMiddleware wraps the model's calls, plain and streamed; the first is the
	// outermost (see ModelMiddleware).
	ModelMiddleware []ModelMiddleware
	// RunMiddleware wraps every run; the first is the outermost.
	RunMiddleware []RunMiddleware
	// MaxIterations bounds the model calls of one run. Zero means 8.
	MaxIterations int
	// FinalAnswerOnLimit, when the iteration limit or a limit of the Budget is reached,
	// makes one more request in which the model cannot call tools and is told it is out of
	// budget, so the user gets an answer rather than an error (see Budget for where that
	// request falls). Default false: the run ends with ErrIterationLimit, or a *BudgetError.
	FinalAnswerOnLimit bool
	// Temperature is the sampling temperature. Nil means 0, the right value for tool calling;
	// a 0 is sent as WireZeroTemperature because go-openai drops a zero float. For reasoning
	// models that refuse the parameter (o1, o3, o4, gpt-5 families) none is sent.
	Temperature *float32
	// MaxCompletionTokens caps the tokens of each reply. Zero sends no cap.
	MaxCompletionTokens int
	// ToolChoice is sent as tool_choice: "auto", "required", "none", or an openai.ToolChoice.
	// Nil sends none (the provider's default, "auto").
	ToolChoice any
	// ParallelToolCalls is sent as parallel_tool_calls when non-nil.
	ParallelToolCalls *bool
	// MaxConcurrency bounds the tool calls of one turn that run at the same time. Zero means 8.
	// With 1, the calls of a turn run one at a time, in emission order, and none starts early.
	MaxConcurrency int
	// MaxReplyBytes bounds the size of one model reply — its content, reasoning, refusal and
	// tool calls' names and arguments together — that the loop accepts: a reply past it ends
	// the run with StopModelError and an error wrapping ErrReplyTooLarge (a stream is
	// abandoned as soon as it passes the bound). Zero means 4 MiB, beyond any model's output
	// limit. The HTTP body of a reply is read by the Model: bound it there too
	// (middleware.Transport does, for an *openai.Client).
	MaxReplyBytes int
	// MaxToolCalls bounds the tool calls of one model reply that are run: the calls past it
	// are answered, not run, with a not_executed result that tells the model the bound. Zero
	// means 32.
	MaxToolCalls int
	// LoopLimit is how many consecutive turns may make the same set of calls (same names,
	// same arguments, key order ignored) and have them executed. Past it the calls are not run
	// again: the model gets a loop_detected result telling it to stop repeating. Zero means 2.
	LoopLimit int
	// LoopStop ends the run with StopLoopDetected when the same set of calls comes this many
	// turns in a row. Zero means LoopLimit + 2.
	LoopStop int
	// Logger receives the run's records at Debug level: each model request with every
	// message it carries (the seed's advice "print the messages and look at what the model
	// received" is this option), each response, and the run's end. Tool calls are logged by
	// middleware.Log, once each. Nil logs nothing.
	Logger *slog.Logger
	// OnEvent, when set, receives the run's events.
	OnEvent OnEvent
	// Memory stores sessions for RunSession. Nil: RunSession fails with ErrNoMemory.
	Memory Memory
	// NoEarlyStart turns off early start in streaming runs (see Agent.RunStream): calls
	// then start only when the model's message is complete. Default false.
	NoEarlyStart bool
	// Context, when set, chooses the messages sent to the model from the transcript before
	// every request (a window, cleared tool results, folded turns). Nil sends everything.
	// When it is a TurnLimiter and Memory a RecentLoader, RunSession loads only the turns it
	// sends (see RunSession).
	Context ContextStrategy
	// Ledger records the pauses that were resumed, so that Resume runs a pause's approved
	// calls once however many times, or however concurrently, the same state is resumed
	// (*memory.InMemory and memory/sqlite's Store are Ledgers). Keep it where the run is
	// stored. Nil: Resume fails with ErrNoLedger (ResumeSession needs none: the session's
	// PauseStore hands its pause out once).
	Ledger Ledger
	// PauseKey, when set, signs every Pause (Pause.MAC, an HMAC-SHA256) and makes Resume
	// refuse, with ErrPauseTampered and before anything runs, a state that is not signed with
	// it or was altered since. Set it whenever a paused state leaves the server (a client, a
	// file, a queue), to at least 32 random bytes. Nil: states are neither signed nor
	// checked. An empty, non-nil key (a key file left empty) makes New panic: anyone can
	// compute an HMAC under it.
	PauseKey []byte
	// Prices prices the model calls (Step.Cost, Result.Cost). Nil: every model call's cost
	// is unknown (Cost.Unknown), never 0.
	Prices Prices
	// Budget bounds what each run may spend: model calls, tool calls, tokens, cost, wall
	// time (see Budget). The zero Budget limits nothing; [WithBudget] sets a run's own.
	Budget Budget
	// UsageRecorder, when set, receives what every run spends as it spends it, with the
	// run's session: how usage and cost are summed per session or per user (*Meter sums in
	// memory). Nil records nothing beyond each Result.
	UsageRecorder UsageRecorder
}

// Agent runs the tool-calling loop. It is immutable after New and safe for concurrent use by
// any number of runs, like a *sql.DB.
type Agent struct {
	call    CallFunc   // the model's plain call, through Options.ModelMiddleware
	stream  StreamFunc // its streamed call, nil when the model is not a StreamingModel
	opts    Options
	tools   toolbox // Options.Tools
	handler tool.Handler
	temp    *float32 // the temperature sent; nil sends none
}

// New returns an Agent that calls model. It panics when model is nil, two tools share a
// name, or Options.PauseKey is empty but not nil: programming errors found at construction.
func New(model Model, opts *Options) *Agent {
	if model == nil {
		panic("agentkit.New: nil Model")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	for _, d := range []struct {
		p *int
		v int
	}{
		{&o.MaxIterations, 8}, {&o.MaxConcurrency, 8}, {&o.MaxToolCalls, 32}, {&o.MaxReplyBytes, 4 << 20}, {&o.LoopLimit, 2},
	} {
		if *d.p <= 0 {
			*d.p = d.v
		}
	}
	if o.LoopStop <= o.LoopLimit {
		o.LoopStop = o.LoopLimit + 2
	}
	o.Tools = append([]*tool.Tool(nil), o.Tools...)
	o.Middleware = append([]tool.Middleware(nil), o.Middleware...)
	o.RunMiddleware = append([]RunMiddleware(nil), o.RunMiddleware...)
	o.ModelMiddleware = append([]ModelMiddleware(nil), o.ModelMiddleware...)
	if o.PauseKey != nil && len(o.PauseKey) == 0 {
		panic("agentkit.New: Options.PauseKey is empty: anyone can sign with an empty key (nil turns signing off)")
	}
	o.PauseKey = slices.Clone(o.PauseKey)
	o.Prices = maps.Clone(o.Prices)
	if !sendsExtras(model) {
		model = WrapModel(model, stripExtras{})
	}
	model = WrapModel(model, o.ModelMiddleware...)
	a := &Agent{call: model.CreateChatCompletion, opts: o, tools: toolbox{byName: make(map[string]*tool.Tool, len(o.Tools))}}
	if sm, ok := model.(StreamingModel); ok {
		a.stream = sm.CreateChatCompletionStream
	}
	for i, t := range o.Tools {
		if t == nil {
			panic(fmt.Sprintf("agentkit.New: Tools[%d] is nil", i))
		}
		if _, dup := a.tools.byName[t.Name()]; dup {
			panic(fmt.Sprintf("agentkit.New: two tools are named %q", t.Name()))
		}
		a.tools.add([]*tool.Tool{t}, "Tools")
	}
	if out := o.Output; out != nil && out.mode == OutputTool {
		if err := a.tools.add([]*tool.Tool{out.t}, "Output"); err != nil {
			panic(fmt.Sprintf("agentkit.New: the output tool %q: a tool of Tools has its name", out.t.Name()))
		}
	}
	o.Toolsets = slices.Clone(o.Toolsets)
	a.handler = tool.Chain(o.Middleware...)(a.dispatch)
	if !refusesSampling(o.Model) {
		temp := WireZeroTemperature
		if o.Temperature != nil && *o.Temperature != 0 {
			temp = *o.Temperature
		}
		a.temp = &temp
	}
	return a
}

// Definition returns the tools entry of a chat-completions request for t.
func Definition(t *tool.Tool) openai.Tool {
	return openai.Tool{
		Type: openai.ToolTypeFunction,
		Function: &openai.FunctionDefinition{
			Name:        t.Name(),
			Description: t.Description(),
			Strict:      t.Strict(),
			Parameters:  json.RawMessage(t.Parameters()),
		},
	}
}

// Tools returns the agent's tools in the order they were given.
func (a *Agent) Tools() []*tool.Tool { return append([]*tool.Tool(nil), a.opts.Tools...) }
