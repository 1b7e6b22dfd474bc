package agentkit

import (
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
// Agent.RunStream; read Events, then Result. A StreamRun is used by one goroutine.
type StreamRun struct {
	events <-chan Event
	cancel context.CancelFunc
	done   chan struct{}
	res    *Result
	err    error
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
// OpenAIStreaming) — including after Options.ModelMiddleware, so a middleware that does not
// implement it turns streaming off: the run then uses CreateChatCompletion and the answer
// arrives as one EventTextDelta. Requests ask for usage (stream_options.include_usage).
//
// Early start: a tool call whose arguments are complete starts at once, while the model is
// still streaming the rest of its message, unless Options.NoEarlyStart is set, the tool is
// Sequential, or the call repeats one of the previous turn's calls (those go through the loop
// guard). Results are still appended in emission order. If the stream then breaks, the early
// calls are canceled and not recorded — a tool whose side effects must not happen for a
// message that never completed should be marked Sequential.
func (a *Agent) RunStream(ctx context.Context, input string) *StreamRun {
	return a.RunMessagesStream(ctx, []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: input}})
}

// RunMessagesStream is RunStream on a history, as RunMessages.
func (a *Agent) RunMessagesStream(ctx context.Context, history []openai.ChatCompletionMessage) *StreamRun {
	r := a.newRun(history)
	return a.startStream(ctx, r)
}

func (a *Agent) startStream(ctx context.Context, r *run) *StreamRun {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan Event, 64)
	s := &StreamRun{events: ch, cancel: cancel, done: make(chan struct{})}
	if sm, ok := a.model.(StreamingModel); ok {
		r.streamer = sm
	}
	var mu sync.Mutex
	closed := false
	r.sink = func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return // a late event from a goroutine abandoned on cancellation
		}
		select {
		case ch <- e: // while the buffer has room, even after a cancellation
			return
		default:
		}
		select { // a full buffer: wait for the reader, unless it is gone
		case ch <- e:
		case <-ctx.Done():
		}
	}
	go func() {
		defer close(s.done)
		s.res, s.err = r.start(ctx)
		mu.Lock()
		closed = true
		close(ch)
		mu.Unlock()
		cancel()
	}()
	return s
}

// Events yields the run's events in order. Breaking out of the loop cancels the run; Result
// then returns the canceled run's record. Events can be ranged over once.
func (s *StreamRun) Events() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for e := range s.events {
			if !yield(e) {
				s.cancel()
				for range s.events { // let the run finish; it sees the cancellation
				}
				return
			}
		}
	}
}

// Result waits for the run to end and returns its Result and error, as Run does. Events not
// read are discarded.
func (s *StreamRun) Result() (*Result, error) {
	for range s.events {
	}
	<-s.done
	return s.res, s.err
}

// turnState holds the calls of one turn started early, while the model was streaming.
type turnState struct {
	ctx     context.Context
	cancel  context.CancelFunc
	ids     map[int]string // call position -> id assigned at early start
	pending map[int]*pendingCall
	sem     chan struct{}
}

type pendingCall struct {
	done chan struct{}
	rec  CallRecord
}

// id returns the id given to call i when it was started early.
func (t *turnState) id(i int) (string, bool) {
	if t == nil {
		return "", false
	}
	id, ok := t.ids[i]
	return id, ok
}

// endTurn releases the turn's early-start state; calls still running are canceled.
func (r *run) endTurn() {
	if r.turn != nil {
		r.turn.cancel()
		r.turn = nil
	}
}

// callStream makes one streaming model call, emitting deltas and starting complete calls
// early, and returns the assembled message as a response.
func (r *run) callStream(ctx context.Context, iter int, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	s, err := r.streamer.CreateChatCompletionStream(ctx, req)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	defer s.Close()
	var asm Assembler
	var deltas []Delta
	handle := func(ds []Delta) {
		for _, d := range ds {
			switch d.Kind {
			case DeltaText:
				r.emit(ctx, Event{Kind: EventTextDelta, Iteration: iter, Text: d.Text})
			case DeltaReasoning:
				r.emit(ctx, Event{Kind: EventReasoningDelta, Iteration: iter, Text: d.Text})
			case DeltaToolCallStart:
				c := asm.Call(d.Call)
				r.emit(ctx, Event{Kind: EventToolCallStart, Iteration: iter, Call: &tool.Call{ID: c.ID, Name: c.Function.Name}})
			case DeltaToolCallDone:
				r.early(ctx, iter, d.Call, asm.Call(d.Call))
			}
		}
	}
	for {
		chunk, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			partial, lost := asm.Partial()
			r.endTurn()
			return openai.ChatCompletionResponse{}, &StreamError{Partial: partial.Content, LostCalls: lost, Err: err}
		}
		deltas = asm.Add(deltas[:0], chunk)
		handle(deltas)
	}
	deltas, msg, finish, usage := asm.Finish(deltas[:0])
	handle(deltas)
	resp := openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: finish}}}
	if usage != nil {
		resp.Usage = *usage
	}
	return resp, nil
}

// early registers call i of the message being streamed, whose arguments are complete,
// reports it ready, and starts it when early start applies.
func (r *run) early(ctx context.Context, iter, i int, c openai.ToolCall) {
	if r.turn == nil {
		tctx, cancel := context.WithCancel(ctx)
		r.turn = &turnState{ctx: tctx, cancel: cancel, ids: map[int]string{}, pending: map[int]*pendingCall{},
			sem: make(chan struct{}, r.a.opts.MaxConcurrency)}
	}
	id := r.uniqueID(ctx, c.ID, i)
	r.turn.ids[i] = id
	call := tool.Call{ID: id, Name: c.Function.Name, Arguments: c.Function.Arguments, Tool: r.a.byName[c.Function.Name]}
	r.emit(ctx, Event{Kind: EventToolCallReady, Iteration: iter, Call: &call})
	if r.final || r.a.opts.NoEarlyStart || (call.Tool != nil && call.Tool.Sequential()) || r.guard.repeated(call) {
		return
	}
	p := &pendingCall{done: make(chan struct{})}
	r.turn.pending[i] = p
	t := r.turn
	go func() {
		defer close(p.done)
		acquired := false
		select {
		case t.sem <- struct{}{}:
			acquired = true
		case <-t.ctx.Done():
		}
		if err := t.ctx.Err(); err != nil { // both may have been ready: select picks at random
			if acquired {
				<-t.sem
			}
			p.rec = CallRecord{Call: call, Result: canceled(call, err)}
			return
		}
		p.rec = r.invoke(t.ctx, iter, call)
		<-t.sem
	}()
}
