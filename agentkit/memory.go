package agentkit

import (
	"context"
	"errors"
	"fmt"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// Memory stores conversations by session id. Package memory has an in-memory and a SQLite
// implementation, and memory/memorytest a conformance kit for others.
//
// The agent calls Load once at the start of RunSession, then Append with the new user message,
// and again after every completed step with the step's messages — the assistant message and
// all its tool results in one call, never one without the other — so a crash mid-run loses
// nothing already completed. The system prompt is not stored: it belongs to the Agent.
//
// A Memory must be safe for concurrent use by runs of different sessions. Appended messages
// are the caller's: copy what you keep. So are the messages Load returns, and the slice
// itself: RunSession makes it the run's transcript, inserting the system prompt at its front
// and appending to it, without copying the history again (a store may leave room for a few
// more messages in it).
type Memory interface {
	// Load returns the session's history in order; empty for a new session. With
	// opts.RecentTurns set, the store may leave old turns out (see LoadOptions and History);
	// a store that cannot returns the whole history, which is always correct.
	Load(ctx context.Context, session string, opts LoadOptions) (History, error)
	// Append adds messages to the end of the session's history, atomically.
	Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error
}

// LoadOptions says how much of a session a run needs. The zero value asks for all of it.
type LoadOptions struct {
	// RecentTurns, when positive, allows the store to leave out the turns before the
	// latest RecentTurns ones, except the session's first user message and what precedes
	// it, which are always loaded. A turn is a user message and everything up to the next
	// one, so a cut never separates a tool call from its results. RunSession sets it from
	// Options.SessionTurns.
	RecentTurns int
}

// History is what Memory.Load returns: the session's messages, or, when the store left old
// turns out, its beginning and its end.
type History struct {
	// Messages are the session's messages in order. When Omitted is positive, they are the
	// messages up to and including the session's first user message, followed directly by
	// the latest turns, the first of which begins with a user message: the Omitted messages
	// in between are left out.
	Messages []openai.ChatCompletionMessage
	// Omitted is the number of messages left out of Messages; 0 when it is the whole
	// session.
	Omitted int
	// CallIDUsed reports whether a tool call of the session uses id, among the messages
	// left out at least (it may answer for the others too). It keeps the ids of new tool
	// calls unique across the whole session: some providers number their calls call_0,
	// call_1… again every turn. Required when Omitted is positive; it must be safe for
	// concurrent use and stay usable for the run, while the run appends to the session.
	// When it cannot tell (an I/O error, ctx done), it must answer true: the run then
	// renames its call, which is always safe (and stops asking after a few tries).
	CallIDUsed func(ctx context.Context, id string) bool
}

// SessionLocker is an optional interface of a Memory: when implemented, RunSession holds the
// session's lock for the whole run, so two runs on one session never interleave. Lock
// either waits (until ctx is done) or fails at once with an error wrapping ErrSessionBusy.
type SessionLocker interface {
	Lock(ctx context.Context, session string) (unlock func(), err error)
}

// ContextStrategy chooses what the model is sent from a long history: the most recent turns
// within a token budget, old tool results cleared, old turns folded into a summary. Package
// memory has the built-in strategies.
//
// Apply is called before every model request with the run's transcript (system prompt
// first) and returns the messages to send. It must not modify msgs, and its result must pass
// ValidateHistory (the loop checks). The transcript itself is never shortened: Result.Messages
// and the Memory keep everything. session is "" for runs that are not RunSession.
//
// The transcript is the whole conversation, except in a RunSession whose Memory left old
// turns out (Options.SessionTurns): msgs then lacks the messages between the first user
// message and the latest turns, and OmittedFromContext(ctx) says how many. A strategy that
// needs the whole history (an index into it, a summary of all of it) must refuse such a
// transcript with an error, as memory.Fold does.
type ContextStrategy interface {
	Apply(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error)
}

// ContextStrategyFunc adapts a function to ContextStrategy.
type ContextStrategyFunc func(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error)

// Apply calls f.
func (f ContextStrategyFunc) Apply(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
	return f(ctx, session, msgs)
}

var (
	// ErrNoMemory: RunSession on an Agent without Options.Memory.
	ErrNoMemory = errors.New("agentkit: RunSession needs Options.Memory")
	// ErrSessionBusy: another run holds the session.
	ErrSessionBusy = errors.New("agentkit: session is in use by another run")
)

// RunSession runs input as the next user message of a stored conversation: the session's
// history is loaded from Options.Memory, and every new message is appended to it as the run
// goes. If the Memory is a SessionLocker, the session is locked for the run.
//
// With Options.SessionTurns set, the Memory may load only the session's first user message
// and its latest turns: a run then costs what it sends, not what the session holds, and
// Result.Omitted counts the messages left out of Result.Messages.
//
// Errors from the Memory end the run with StopMemoryError.
func (a *Agent) RunSession(ctx context.Context, session, input string) (*Result, error) {
	mem := a.opts.Memory
	if mem == nil {
		return &Result{Stop: StopMemoryError}, ErrNoMemory
	}
	if l, ok := mem.(SessionLocker); ok {
		unlock, err := l.Lock(ctx, session)
		if err != nil {
			return &Result{Stop: StopMemoryError}, fmt.Errorf("agentkit: session %q: %w", session, err)
		}
		defer unlock()
	}
	ctx = context.WithValue(ctx, sessionKey{}, session)
	var opts LoadOptions
	if a.opts.SessionTurns > 0 {
		// The run's own turn is one of SessionTurns; RecentTurns 0 would load everything.
		opts.RecentTurns = max(a.opts.SessionTurns-1, 1)
	}
	loaded, err := mem.Load(ctx, session, opts)
	if err == nil {
		err = checkLoaded(&loaded, opts)
	}
	if err != nil {
		return &Result{Stop: StopMemoryError}, fmt.Errorf("agentkit: loading session %q: %w", session, err)
	}
	// What Load returns is the caller's (memorytest checks it): it becomes the run's
	// transcript as it is, with no copy of the history.
	hist := loaded.Messages
	if a.opts.Instructions != "" && !hasSystemPrompt(hist) {
		hist = slices.Insert(hist, 0, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: a.opts.Instructions})
	}
	r := a.runOn(append(hist, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: input}))
	r.session, r.sessioned = session, true
	r.persisted = r.res.New - 1 // the input message is new too
	r.res.Omitted = loaded.Omitted
	r.ids.omitted = loaded.CallIDUsed
	return r.start(ctx)
}

// checkLoaded refuses a History that breaks the contract of Memory.Load for opts.
func checkLoaded(h *History, opts LoadOptions) error {
	switch {
	case h.Omitted < 0:
		return fmt.Errorf("the Memory's History has Omitted %d, below zero", h.Omitted)
	case h.Omitted == 0:
		h.CallIDUsed = nil // nothing left out: the run sees every id
	case opts.RecentTurns <= 0:
		return fmt.Errorf("the Memory left out %d messages of a session asked for whole (Options.SessionTurns is not set)", h.Omitted)
	case h.CallIDUsed == nil:
		return fmt.Errorf("the Memory left out %d messages and gave no CallIDUsed, which new tool call ids need to stay unique", h.Omitted)
	}
	return nil
}

// persist appends the transcript's unsaved messages to the session. It runs even when ctx
// is canceled (what happened before the cancellation is kept), without its cancellation.
func (r *run) persist(ctx context.Context) error {
	if !r.sessioned || r.persisted >= len(r.res.Messages) {
		return nil
	}
	msgs := r.res.Messages[r.persisted:]
	if r.budgetAt >= r.persisted && r.budgetAt > 0 {
		// The budget prompt belongs to this run's last request, not to the conversation:
		// stored, it would tell every later run that no tools may be called.
		msgs = append(append([]openai.ChatCompletionMessage(nil), r.res.Messages[r.persisted:r.budgetAt]...), r.res.Messages[r.budgetAt+1:]...)
	}
	if len(msgs) == 0 {
		return nil
	}
	if err := r.a.opts.Memory.Append(context.WithoutCancel(ctx), r.session, msgs); err != nil {
		return fmt.Errorf("agentkit: saving session %q: %w", r.session, err)
	}
	r.persisted = len(r.res.Messages)
	return nil
}

type sessionKey struct{}

type omittedKey struct{}

// OmittedFromContext returns, in the context a ContextStrategy's Apply is given, the number
// of the session's messages that the run's Memory left out of its transcript (see
// Options.SessionTurns and History); 0 when the run loaded its whole session or is not a
// RunSession, and in every other context (a tool's, a middleware's).
func OmittedFromContext(ctx context.Context) int {
	n, _ := ctx.Value(omittedKey{}).(int)
	return n
}

// SessionFromContext returns the session of the RunSession whose context ctx is, or derives
// from: tools and middleware of a session run (a recall tool, a per-user policy) read it.
func SessionFromContext(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(sessionKey{}).(string)
	return s, ok
}
