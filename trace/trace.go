package trace

import (
	"errors"
	"io"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Options configure a page. The zero value (or nil) is the defaults.
type Options struct {
	// Title is the page's title; "toolcall trace" when empty.
	Title string
	// Err is the error the run returned, shown with how it stopped ([Write] only; a
	// [Recorder] has it from the run's EventRunEnd).
	Err error
	// Excerpt is the number of characters of a text (a message, arguments, a result) shown
	// before the rest is folded away, a click away; 2000 when zero or negative.
	Excerpt int
	// Now is the clock of a [Recorder]; time.Now when nil.
	Now func() time.Time
}

func options(opts *Options) Options {
	if opts == nil {
		return Options{}
	}
	return *opts
}

// The notes that say, on the page, how much of it is exact.
const (
	resultNote = "From the run's Result. A Result holds each model call's and tool call's duration, not when it started: " +
		"the timeline lays the model calls end to end, and starts a turn's calls together when its model call ended, " +
		"so times are approximate (a call started early while the model streamed is drawn after it, and the time " +
		"between calls is not shown). A request's messages are the transcript up to its reply; a context strategy " +
		"(agentkit.Options.Context) may have sent fewer, and the final request of FinalAnswerOnLimit one more."
	sessionNote = "From a stored session. A session holds messages only — no durations, token usage, error kinds or repairs: " +
		"the timeline shows the order of the calls, not their time. A request's messages are the session up to its reply."
	recorderNote = "Recorded from the run's events as they happened: each bar runs from the time its first event " +
		"reached the recorder to the time its last did (a model call from its request to its response, a tool call " +
		"from its start to its end), so a call started early while the model streamed is drawn where it began. " +
		"The durations written are the ones the run measured."
)

// Write writes the page of a run from its Result: opts.Err, when set, is the error the run
// returned. It returns the first error of w.
func Write(w io.Writer, res *agentkit.Result, opts *Options) error {
	if res == nil {
		return errors.New("trace: Write of a nil Result")
	}
	o := options(opts)
	wr := newWriter(w, &o, false)
	wr.head(o.Title, []string{resultNote})
	reqs := requestsOf(res)
	var at time.Duration
	var prev []openai.ChatCompletionMessage
	sum := summary{Stop: string(res.Stop), Output: res.Output, Usage: res.Usage, Cost: cost(res.Cost), Turns: len(res.Steps)}
	if o.Err != nil {
		sum.Err = o.Err.Error()
	}
	if res.Pause != nil {
		sum.Pending = res.Pause.Pending
	}
	for k := range res.Steps {
		s := &res.Steps[k]
		kept, added := carried(prev, reqs[k])
		prev = reqs[k]
		t := turn{Iteration: s.Iteration, Carried: len(reqs[k]), Kept: kept, Added: added, Timed: true, Duration: s.Duration,
			Usage: s.Usage, Cost: cost(s.Cost), Finish: string(s.FinishReason), Reply: &s.Message}
		wr.turn(&t)
		wr.reply(&t, at, s.Duration)
		at += s.Duration
		var longest time.Duration
		for i := range s.Calls {
			rec := &s.Calls[i]
			c := call{Iteration: s.Iteration, ID: rec.Call.ID, Name: rec.Call.Name, Arguments: rec.Call.Arguments, Timed: true,
				Duration: rec.Duration, Result: rec.Result, HasResult: true, Cost: cost(rec.Cost)}
			wr.call(&c, i+1, at, rec.Duration)
			longest = max(longest, rec.Duration)
		}
		at += longest
		sum.Calls += len(s.Calls)
	}
	wr.end(&sum)
	return wr.err
}

// WriteSession writes the page of a stored session (what a Memory loads): one model call
// per assistant message, its tool calls with the results the session holds. A session has
// no durations, usage, error kinds or repairs: the page says so, and its timeline shows the
// order of the calls, not their time. It returns the first error of w.
func WriteSession(w io.Writer, msgs []openai.ChatCompletionMessage, opts *Options) error {
	o := options(opts)
	wr := newWriter(w, &o, true)
	wr.head(o.Title, []string{sessionNote})
	var sum summary
	for _, st := range sessionTurns(msgs) { // untimed: the timeline lays the bars out in order
		wr.turn(&st.turn)
		wr.reply(&st.turn, 0, 0)
		for i := range st.calls {
			wr.call(&st.calls[i], i+1, 0, 0)
		}
		sum.Turns++
		sum.Calls += len(st.calls)
		sum.Output = ""
		if m := st.turn.Reply; len(m.ToolCalls) == 0 {
			sum.Output = m.Content
		}
	}
	wr.end(&sum)
	return wr.err
}
