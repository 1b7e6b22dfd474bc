package agentkit

import (
	"context"
	"errors"
	"fmt"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// Memory stores conversations by session id. Package memory has an in-memory store,
// memory/sqlite a SQLite one, and memory/memorytest a conformance kit for others.
//
// RunSession calls Load once, then Append with the new user message, and again after every
// completed step with the step's messages — the assistant message and all its tool results in
// one call, never one without the other — so a crash mid-run loses nothing already completed.
// The system prompt is not stored: it belongs to the Agent.
//
// A Memory must be safe for concurrent use by runs of different sessions. Appended messages
// are the caller's: copy what you keep. So are the messages Load returns, and the slice
// itself: RunSession makes it the run's transcript, inserting the system prompt at its front
// and appending to it.
//
// Optional interfaces add to the contract, as database/sql's drivers do: [SessionLocker]
// (one run per session at a time), [RecentLoader] (load only the latest turns).
type Memory interface {
	// Load returns the session's history in order; empty for a new session.
	Load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error)
	// Append adds messages to the end of the session's history, atomically.
	Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error
}

// SessionLocker is an optional interface of a Memory: when implemented, RunSession holds the
// session's lock for the whole run, so two runs on one session never interleave. Lock
// either waits (until ctx is done) or fails at once with an error wrapping ErrSessionBusy.
// A lock that can expire (a lease shared by processes) must be fenced: once it is lost, the
// store's Append for that session fails with an error wrapping ErrLeaseLost.
type SessionLocker interface {
	Lock(ctx context.Context, session string) (unlock func(), err error)
}

// RecentLoader is an optional interface of a Memory that can load part of a session: its
// beginning and its latest turns. RunSession uses it when Options.Context is a
// [TurnLimiter], whose views never reach further back: a run of a long session then costs
// what it sends, not what the session holds.
//
// A turn is a user message and everything up to the next one, so a cut never separates a
// tool call from its results.
//
// A Memory that wraps another by embedding it (a *memory.InMemory in a struct that redacts
// what Load returns, say) gets the embedded store's LoadRecent too, which bypasses its Load:
// override LoadRecent as well, or embed the agentkit.Memory interface rather than the
// concrete store, which hides RecentLoader.
type RecentLoader interface {
	// LoadRecent returns the session's messages up to and including its first user message,
	// followed directly by its latest turns, at least turns of them (turns >= 1); omitted is
	// the number of messages left out in between (0 when the session has no more turns).
	LoadRecent(ctx context.Context, session string, turns int) (msgs []openai.ChatCompletionMessage, omitted int, err error)
	// CallIDUsed reports whether a tool call of the session uses id, among the messages
	// LoadRecent left out at least. It keeps the ids of new tool calls unique across the
	// whole session: some providers number their calls call_0, call_1… again every turn.
	// An error counts as "used": the run then renames its call, which is always safe.
	CallIDUsed(ctx context.Context, session, id string) (bool, error)
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
// The transcript is the whole conversation, except in a RunSession whose strategy is a
// [TurnLimiter] and whose Memory a [RecentLoader]: msgs then begins with the session's
// first user message and its latest turns only.
type ContextStrategy interface {
	Apply(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error)
}

// TurnLimiter is an optional interface of a ContextStrategy whose views never carry more
// than the system prompt, the first user message and the latest TurnLimit() turns (the run's
// own turn included): memory.Window with MaxTurns is one. Zero or less means no limit. A
// RunSession whose Memory is a [RecentLoader] loads only those turns.
type TurnLimiter interface {
	TurnLimit() int
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
	// ErrLeaseLost: a SessionLocker's hold on the session ended before the run did (its
	// process paused past its lease, or lost its database for longer), and another run may
	// hold the session now: the store refuses what the run appends, and the run ends with
	// StopMemoryError.
	ErrLeaseLost = errors.New("agentkit: the run's hold on its session was lost")
)

// RunSession runs input as the next user message of a stored conversation: the session's
// history is loaded from Options.Memory, and every new message is appended to it as the run
// goes. If the Memory is a SessionLocker, the session is locked for the run. The run's
// context carries the session (SessionFromContext), for its tools and middleware.
//
// When Options.Context is a TurnLimiter (memory.Window with MaxTurns) and the Memory a
// RecentLoader, only the session's first user message and the turns the strategy sends are
// loaded: Result.Messages then holds what was loaded and what the run added, and
// Result.Omitted counts the messages left out.
//
// Errors from the Memory end the run with StopMemoryError; a run canceled while it waits for
// the session's lock or its load stops with StopCanceled.
//
// A RunSession that pauses (StopPaused) keeps its Pause in the Memory when it is a
// [PauseStore]; the session's history then ends before the paused turn, and ResumeSession
// continues it. Until then, a RunSession on the session is refused (StopPaused,
// ErrSessionPaused, Result.Pause the stored pause). With a Memory that keeps no pauses, a
// session run does not pause: calls that would wait are answered not executed, and the
// model reads why.
func (a *Agent) RunSession(ctx context.Context, session, input string) (*Result, error) {
	return a.runSession(ctx, session, input, nil)
}

func (a *Agent) runSession(ctx context.Context, session, input string, sink func(Event)) (*Result, error) {
	r := &run{a: a, sink: sink, session: session, store: a.opts.Memory, res: &Result{}}
	ctx = context.WithValue(ctx, sessionKey{}, session)
	return r.start(ctx, func(ctx context.Context) (*Result, error) { return r.openSession(ctx, input) })
}

// openSession locks and loads the session, within Options.RunMiddleware, then runs the loop on
// it with input as the next user message.
func (r *run) openSession(ctx context.Context, input string) (*Result, error) {
	mem := r.store
	if mem == nil {
		return r.finish(ctx, StopMemoryError, ErrNoMemory)
	}
	if l, ok := mem.(SessionLocker); ok {
		unlock, err := l.Lock(ctx, r.session)
		if err != nil {
			return r.unopened(ctx, fmt.Errorf("agentkit: session %q: %w", r.session, err))
		}
		defer unlock()
	}
	if err := r.pausedSession(ctx); err != nil {
		r.store = nil
		if errors.Is(err, ErrSessionPaused) {
			return r.finish(ctx, StopPaused, err)
		}
		return r.unopened(ctx, err)
	}
	hist, omitted, recent, err := r.a.load(ctx, mem, r.session)
	if err != nil {
		return r.unopened(ctx, fmt.Errorf("agentkit: loading session %q: %w", r.session, err))
	}
	// What Load returns is the caller's (memorytest checks it): it becomes the run's
	// transcript as it is, with no copy of the history.
	if r.a.opts.Instructions != "" && !hasSystemPrompt(hist) {
		hist = slices.Insert(hist, 0, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: r.a.opts.Instructions})
	}
	r.res.Messages = append(hist, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: input})
	r.res.New, r.res.Omitted = len(r.res.Messages), omitted
	if omitted > 0 {
		r.recent = recent
	}
	return r.loop(ctx)
}

// unopened ends a run whose session could not be locked or loaded: nothing of it is stored.
func (r *run) unopened(ctx context.Context, err error) (*Result, error) {
	r.store = nil
	if ctx.Err() != nil {
		return r.finish(ctx, StopCanceled, err)
	}
	return r.finish(ctx, StopMemoryError, err)
}

// load loads the session: its latest turns only when the strategy and the store allow it.
func (a *Agent) load(ctx context.Context, mem Memory, session string) (msgs []openai.ChatCompletionMessage, omitted int, recent RecentLoader, err error) {
	limiter, ok := a.opts.Context.(TurnLimiter)
	recent, ok2 := mem.(RecentLoader)
	if !ok || !ok2 || limiter.TurnLimit() <= 0 {
		msgs, err = mem.Load(ctx, session)
		return msgs, 0, nil, err
	}
	// The run's own turn is one of the strategy's.
	msgs, omitted, err = recent.LoadRecent(ctx, session, max(limiter.TurnLimit()-1, 1))
	if err == nil && omitted < 0 {
		err = fmt.Errorf("the Memory's LoadRecent left out %d messages, below zero", omitted)
	}
	return msgs, omitted, recent, err
}

// save appends msgs, what the run just added to the transcript, to a RunSession's session.
// It runs even when ctx is canceled (what happened before the cancellation is kept), without
// its cancellation.
func (r *run) save(ctx context.Context, msgs []openai.ChatCompletionMessage) error {
	if r.store == nil || len(msgs) == 0 {
		return nil
	}
	if err := r.store.Append(context.WithoutCancel(ctx), r.session, msgs); err != nil {
		return fmt.Errorf("agentkit: saving session %q: %w", r.session, err)
	}
	return nil
}

type sessionKey struct{}

// SessionFromContext returns the session of the RunSession whose context ctx is, or derives
// from: the tools and middleware of a session run (a recall tool, a per-user policy) read it.
func SessionFromContext(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(sessionKey{}).(string)
	return s, ok
}
