package trace

import (
	"context"
	"io"
	"slices"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// Recorder writes the page of a run as it goes, from its events: its OnEvent method is an
// agentkit.OnEvent (Options.OnEvent, or a streamed run's events). Each model call's section
// is written when its request is sent, its reply when it comes, each tool call when it
// ends; the run's EventRunEnd writes the summary and the timeline and ends the page, which
// is then whole ([Recorder.Close] ends the page of a run that did not end). It keeps the timeline's bars and the latest request's messages, not the
// run's history, so that a long run's page costs little memory.
//
// A Recorder records one run; the events after its EventRunEnd are ignored, and so are the
// events of the runs of sub-agents (agentkit.Agent.Tool) that share its OnEvent: a
// sub-agent's run is its call on this page (give the sub-agent a Recorder of its own for a
// page of its run). A run's events are told apart by the tool call their context serves
// (tool.CallFromContext): none for a run of its own, the calling tool's for a sub-agent's.
// It is safe for concurrent use (the tool events of a turn arrive concurrently). The zero
// Recorder is not usable: make one with [NewRecorder].
type Recorder struct {
	mu      sync.Mutex
	wr      *writer
	now     func() time.Time
	title   string
	t0      time.Time
	started bool
	done    bool
	// own is the call the context of the run's events serves (hasOwn false for none).
	own    tool.Call
	hasOwn bool
	prev   []openai.ChatCompletionMessage
	cur    turn
	curAt  time.Duration
	lanes  int // the lanes the current turn's calls took
	starts map[callKey]callStart
	sum    summary
	total  agentkit.Cost // the costs the events reported, summed for the run's summary
}

type callKey struct {
	iteration int
	id        string
}

type callStart struct {
	at   time.Duration
	lane int
}

// NewRecorder returns a Recorder writing to w. opts.Now is its clock (time.Now when nil);
// opts.Err is unused (the run's error comes with EventRunEnd).
func NewRecorder(w io.Writer, opts *Options) *Recorder {
	o := options(opts)
	r := &Recorder{wr: newWriter(w, &o, false), now: o.Now, title: o.Title, starts: map[callKey]callStart{}}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// Err returns the first error writing the page met; after it, nothing more is written.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wr.err
}

// OnEvent records e. Its signature is agentkit.OnEvent's.
func (r *Recorder) OnEvent(ctx context.Context, e agentkit.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, has := tool.CallFromContext(ctx)
	if r.done || r.started && (has != r.hasOwn || c != r.own) {
		return
	}
	now := r.now()
	if !r.started {
		r.started, r.t0, r.own, r.hasOwn = true, now, c, has
		r.wr.head(r.title, []string{recorderNote})
	}
	at := now.Sub(r.t0)
	switch e.Kind {
	case agentkit.EventModelRequest:
		r.request(&e, at)
	case agentkit.EventModelResponse:
		r.response(&e, at)
	case agentkit.EventToolStart:
		r.resumed(e.Iteration)
		r.lanes++
		r.starts[callKey{e.Iteration, e.Call.ID}] = callStart{at: at, lane: r.lanes}
	case agentkit.EventToolEnd:
		r.toolEnd(&e, at)
	case agentkit.EventAnswer:
		r.sum.Output = e.Text
	case agentkit.EventRunEnd:
		r.sum.Stop = string(e.Stop)
		if e.Err != nil {
			r.sum.Err = e.Err.Error()
		}
		r.end()
	}
}

// notEnded is the summary's error of a page that Close ended.
const notEnded = "trace: the run did not end: the page was closed before the run's end was recorded " +
	"(the run panicked, or its events stopped coming); the calls still running are not shown"

// Close ends the page of a run whose EventRunEnd never came — a run that panicked (a panic
// of another OnEvent is raised from Run and ends it), or whose events stopped coming: the
// summary says so, the timeline has the calls recorded so far, and the page is whole. After
// the run's EventRunEnd it writes nothing. The events after Close are ignored. It returns
// [Recorder.Err]. Use it as defer rec.Close() where the run is started.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.done {
		if !r.started {
			r.started = true
			r.wr.head(r.title, []string{recorderNote})
		}
		r.sum.Err = notEnded
		r.end()
	}
	return r.wr.err
}

// end writes the summary and the timeline, and ends the page.
func (r *Recorder) end() {
	r.sum.Cost = cost(r.total)
	r.wr.end(&r.sum)
	r.done = true
}

func (r *Recorder) request(e *agentkit.Event, at time.Duration) {
	var msgs []openai.ChatCompletionMessage
	if e.Request != nil {
		msgs = slices.Clone(e.Request.Messages)
	}
	kept, added := carried(r.prev, msgs)
	r.prev = msgs
	r.cur = turn{Iteration: e.Iteration, Carried: len(msgs), Kept: kept, Added: added, Timed: true}
	r.curAt, r.lanes = at, 0
	r.wr.turn(&r.cur)
	r.sum.Turns++
}

func (r *Recorder) response(e *agentkit.Event, at time.Duration) {
	t := r.cur
	t.Duration, t.Usage, t.Reply, t.Cost = e.Duration, e.Usage, e.Message, cost(e.Cost)
	r.total.Add(e.Cost)
	if e.Err != nil {
		t.Err = e.Err.Error()
	}
	r.wr.reply(&t, r.curAt, at-r.curAt)
	r.sum.Usage.Add(e.Usage)
}

// resumed opens the section of the turn of a tool event that came with no model call before
// it: the paused turn of a resumed run (Agent.Resume), whose model call the paused run made.
func (r *Recorder) resumed(iteration int) {
	if r.cur.Iteration != iteration {
		r.cur, r.lanes = turn{Iteration: iteration, Resumed: true}, 0
		r.wr.turn(&r.cur)
	}
}

func (r *Recorder) toolEnd(e *agentkit.Event, at time.Duration) {
	if e.Call == nil || e.Result == nil {
		return
	}
	r.resumed(e.Iteration)
	k := callKey{e.Iteration, e.Call.ID}
	st, ok := r.starts[k]
	if !ok { // a call refused without running has no EventToolStart
		r.lanes++
		st = callStart{at: at, lane: r.lanes}
	}
	delete(r.starts, k)
	c := call{Iteration: e.Iteration, ID: e.Call.ID, Name: e.Call.Name, Arguments: e.Call.Arguments, Timed: true,
		Duration: e.Duration, Result: *e.Result, HasResult: true, Cost: cost(e.Cost)}
	r.total.Add(e.Cost)
	r.wr.call(&c, st.lane, st.at, at-st.at)
	r.sum.Calls++
}
