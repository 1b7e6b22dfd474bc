package agentkit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// StreamRun is a run in progress whose events can be read as they happen. Get one from
// Agent.RunStream, RunMessagesStream or RunSessionStream; read Events, then Result. A
// StreamRun is used by one goroutine.
//
// The run never waits for its reader: its events queue up until they are read, every one of
// them, whatever the reader's pace and however the run ends.
type StreamRun struct {
	cancel   context.CancelFunc
	done     chan struct{} // closed when the run has ended
	res      *Result
	err      error
	panicked any // a panic of the run (an OnEvent's), raised again to the reader

	mu     sync.Mutex
	queue  []Event       // the events not yet read
	ended  bool          // the run has ended: queue holds its last events
	notify chan struct{} // a token when queue or ended changed
}

// StreamError is the error of a model call whose stream broke before the model finished its
// message. The transcript does not include the partial message; Partial has its text.
type StreamError struct {
	// Partial is the content received before the stream broke.
	Partial string
	// LostCalls is the number of tool calls the model had begun; none of them was recorded,
	// and calls started early were canceled.
	LostCalls int
	// Err is the stream's error.
	Err error
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("agentkit: stream broke after %d bytes of text and %d tool call(s): %v", len(e.Partial), e.LostCalls, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }

// RunStream is Run with the model's reply streamed: Events yields text deltas as the model
// writes, tool calls as soon as they are announced and when their arguments are complete,
// their results, the end of each step, and the final answer.
//
// The model streams when it implements StreamingModel (wrap a *openai.Client with
// OpenAIStreaming); Options.ModelMiddleware wraps streamed calls through its WrapStream, so
// middleware never turns streaming off. A model that cannot stream is called as in Run, and
// its answer arrives as one EventTextDelta. Requests ask for usage
// (stream_options.include_usage).
//
// Early start: a tool call whose arguments are complete starts at once, while the model is
// still streaming the rest of its message, unless Options.NoEarlyStart is set,
// MaxConcurrency is 1, the call is past MaxToolCalls, the tool is Sequential, or the call
// repeats one of the previous turn's calls (those go through the loop guard). A call done
// only when the message ends starts then, unless the message was cut short (finish_reason
// length or content_filter), whose calls do not run. Results are still appended in emission order. If
// the stream then breaks, the early calls are canceled, waited for, and not recorded — a tool
// whose side effects must not happen for a message that never completed should be marked
// Sequential.
func (a *Agent) RunStream(ctx context.Context, input string) *StreamRun {
	return a.RunMessagesStream(ctx, []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: input}})
}

// RunMessagesStream is RunMessages with the model's reply streamed, as RunStream.
func (a *Agent) RunMessagesStream(ctx context.Context, history []openai.ChatCompletionMessage) *StreamRun {
	return startStream(ctx, func(ctx context.Context, sink func(Event)) (*Result, error) {
		r := a.newRun(history, sink)
		return r.start(ctx, r.loop)
	})
}

// RunSessionStream is RunSession with the model's reply streamed, as RunStream.
func (a *Agent) RunSessionStream(ctx context.Context, session, input string) *StreamRun {
	return startStream(ctx, func(ctx context.Context, sink func(Event)) (*Result, error) {
		return a.runSession(ctx, session, input, sink)
	})
}

// startStream runs run in a goroutine of its own, its events queued for the StreamRun.
func startStream(ctx context.Context, run func(ctx context.Context, sink func(Event)) (*Result, error)) *StreamRun {
	ctx, cancel := context.WithCancel(ctx)
	s := &StreamRun{cancel: cancel, done: make(chan struct{}), notify: make(chan struct{}, 1)}
	sink := func(e Event) { // the tool events of one turn come from the calls' goroutines
		s.mu.Lock()
		s.queue = append(s.queue, e)
		s.mu.Unlock()
		s.wake()
	}
	go func() {
		defer func() {
			s.panicked = recover()
			if s.res == nil { // the run's goroutine ended without returning (runtime.Goexit)
				s.res, s.err = &Result{Stop: StopCanceled}, errors.New("agentkit: the run ended without returning")
			}
			s.mu.Lock()
			s.ended = true
			s.mu.Unlock()
			s.wake()
			cancel()
			close(s.done)
		}()
		s.res, s.err = run(ctx, sink)
	}()
	return s
}

func (s *StreamRun) wake() {
	select {
	case s.notify <- struct{}{}:
	default: // a token is already there
	}
}

// Events yields the run's events in order, the last one EventRunEnd. Breaking out of the loop
// cancels the run; Result then returns the canceled run's record. Events can be ranged over
// once.
func (s *StreamRun) Events() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for {
			s.mu.Lock()
			batch, ended := s.queue, s.ended
			s.queue = nil
			s.mu.Unlock()
			for _, e := range batch {
				if !yield(e) {
					s.cancel()
					return
				}
			}
			if ended && len(batch) == 0 {
				s.Result() // raises the run's panic, if any
				return
			}
			if len(batch) == 0 {
				<-s.notify
			}
		}
	}
}

// Result waits for the run to end and returns its Result and error, as Run does; events not
// read stay readable through Events. A panic of the run (in an OnEvent) is raised here, and
// at the end of Events, on the reader's goroutine.
func (s *StreamRun) Result() (*Result, error) {
	<-s.done
	if s.panicked != nil {
		panic(s.panicked)
	}
	return s.res, s.err
}

// callStream makes one streamed model call, emitting deltas and starting complete calls
// early in t, and returns the assembled message as a response.
func (r *run) callStream(ctx context.Context, t *turn, req openai.ChatCompletionRequest, final bool) (openai.ChatCompletionResponse, error) {
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	s, err := r.a.stream(ctx, req)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	defer s.Close()
	var asm Assembler
	var deltas []Delta
	partials := r.outputPartials(ctx, t.iter)
	handle := func(ds []Delta) {
		for _, d := range ds {
			switch d.Kind {
			case DeltaText:
				r.emit(ctx, Event{Kind: EventTextDelta, Iteration: t.iter, Text: d.Text})
				partials.addText(d.Text)
			case DeltaReasoning:
				r.emit(ctx, Event{Kind: EventReasoningDelta, Iteration: t.iter, Text: d.Text})
			case DeltaToolCallStart:
				c := asm.Call(d.Call)
				r.emit(ctx, Event{Kind: EventToolCallStart, Iteration: t.iter, Call: &tool.Call{ID: c.ID, Name: c.Function.Name}})
				partials.started(d.Call, c.Function.Name)
			case DeltaToolCallDone:
				r.early(ctx, t, d.Call, asm.Call(d.Call), final)
			}
		}
	}
	size, model := 0, "" // model: the first a chunk names, which prices the call as a plain response's would
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			model = cmp.Or(model, chunk.Model)
			if size += chunkSize(&chunk); size > r.a.opts.MaxReplyBytes {
				err = fmt.Errorf("%w: over the %d-byte bound (Options.MaxReplyBytes)", ErrReplyTooLarge, r.a.opts.MaxReplyBytes)
			}
		}
		if err != nil {
			partial, lost := asm.Partial()
			return openai.ChatCompletionResponse{}, &StreamError{Partial: partial.Content, LostCalls: lost, Err: err}
		}
		deltas = asm.Add(deltas[:0], chunk)
		handle(deltas)
		partials.chunk(&asm)
	}
	deltas, msg, finish, usage := asm.Finish(deltas[:0])
	final = final || cutOff(finish) != "" // the calls of a reply cut short do not run
	handle(deltas)
	partials.flush(&asm)
	resp := openai.ChatCompletionResponse{Model: model, Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: finish}}}
	if usage != nil {
		resp.Usage = *usage
	}
	return resp, nil
}

// chunkSize is the size of what a chunk adds to the reply.
func chunkSize(c *openai.ChatCompletionStreamResponse) int {
	n := 0
	for _, ch := range c.Choices {
		d := &ch.Delta
		n += replySize(&openai.ChatCompletionMessage{Content: d.Content, ReasoningContent: d.ReasoningContent, Refusal: d.Refusal, ToolCalls: d.ToolCalls})
	}
	return n
}

// early registers call i of the message being streamed, whose arguments are complete, gives
// it its id, reports it ready, and starts it when early start applies.
func (r *run) early(ctx context.Context, t *turn, i int, c openai.ToolCall, final bool) {
	if t.ids == nil {
		t.ids = map[int]string{}
	}
	t.ids[i] = r.uniqueID(ctx, c.ID, i)
	call := tool.Call{ID: t.ids[i], Name: c.Function.Name, Arguments: c.Function.Arguments, Tool: r.box.byName[c.Function.Name]}
	ready := call // the event's own: an OnEvent that edits it does not change the call started
	r.emit(ctx, Event{Kind: EventToolCallReady, Iteration: t.iter, Call: &ready})
	if final || r.a.opts.NoEarlyStart || i >= r.a.opts.MaxToolCalls || r.earlyOut(i, call.Name) || !t.parallel(call) || r.guard.repeated(call) {
		return
	}
	t.start(i, call)
}
