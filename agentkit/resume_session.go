package agentkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrSessionPaused: RunSession on a session whose last run paused: its pending calls need
// their decisions first (ResumeSession); Result.Pause shows them.
var ErrSessionPaused = errors.New("agentkit: the session waits for decisions on paused calls: ResumeSession it first")

// ResumeSession continues the paused run of a session — after a restart too: the pause is
// kept by Options.Memory, which must be a PauseStore — with a decision for each pending call,
// as Resume does. The session is locked for the run when the Memory is a SessionLocker.
//
// The state and the decisions are checked first, the pause left in place when they are
// refused (ErrDecision…); then the pause is taken from the store (PauseStore.TakePause), and
// only the resume that takes it runs: another gets ErrAlreadyResumed, one of a session that
// has no pause an error wrapping ErrNoPause. No Ledger is needed. A crash after the take and
// before the approved calls finish loses the pause: its calls then ran at most once.
//
// A pause that can never resume — signed with a key since retired (ErrPauseTampered), of a
// version this package does not read — would keep the session refusing new messages: drop
// it with the store's own TakePause, and the session goes on from before the paused turn.
func (a *Agent) ResumeSession(ctx context.Context, session string, decisions []Decision) (*Result, error) {
	return a.resumeSession(ctx, session, decisions, nil)
}

// ResumeSessionStream is ResumeSession with the model's replies streamed, as ResumeStream.
func (a *Agent) ResumeSessionStream(ctx context.Context, session string, decisions []Decision) *StreamRun {
	return startStream(ctx, func(ctx context.Context, sink func(Event)) (*Result, error) {
		return a.resumeSession(ctx, session, decisions, sink)
	})
}

func (a *Agent) resumeSession(ctx context.Context, session string, decisions []Decision, sink func(Event)) (*Result, error) {
	r := &run{a: a, sink: sink, res: &Result{}}
	ctx = context.WithValue(ctx, sessionKey{}, session)
	return r.start(ctx, func(ctx context.Context) (*Result, error) { return r.resumeSession(ctx, session, decisions) })
}

// resumeSession locks the session and takes its pause, within Options.RunMiddleware (a
// middleware that does not call next leaves the pause in place), and resumes it.
func (r *run) resumeSession(ctx context.Context, session string, decisions []Decision) (*Result, error) {
	a := r.a
	ps, ok := a.opts.Memory.(PauseStore)
	if !ok {
		return r.refuse(ctx, fmt.Errorf("%w: ResumeSession needs a Memory that is a PauseStore", ErrNoMemory))
	}
	if l, ok := a.opts.Memory.(SessionLocker); ok {
		unlock, err := l.Lock(ctx, session)
		if err != nil {
			return r.refuse(ctx, fmt.Errorf("agentkit: session %q: %w", session, err))
		}
		defer unlock()
	}
	p, box, err := a.take(ctx, ps, session, decisions)
	if err != nil {
		return r.refuse(ctx, err)
	}
	r.adopt(p, box)
	r.session, r.store = session, a.opts.Memory
	if recent, ok := r.store.(RecentLoader); ok && p.Omitted > 0 {
		r.recent = recent // new call ids stay unique among the messages the run never loaded
	}
	return r.resume(ctx, p, decisions)
}

// take checks the session's pause and decisions, then takes the pause from ps, and returns
// it with the tools the resumed turn runs with.
func (a *Agent) take(ctx context.Context, ps PauseStore, session string, decisions []Decision) (*Pause, *toolbox, error) {
	state, p, err := a.storedPause(ctx, ps, session)
	if err != nil {
		return nil, nil, err
	}
	if err := a.checkPause(p, decisions); err != nil {
		return nil, nil, err
	}
	box, err := a.toolbox(ctx) // before the take: a Toolset that fails leaves the pause in place
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil { // whatever the store would do with it: nothing could run
		return nil, nil, fmt.Errorf("agentkit: resuming session %q: %w", session, err)
	}
	taken, err := ps.TakePause(ctx, session)
	switch {
	case errors.Is(err, ErrNoPause):
		return nil, nil, fmt.Errorf("%w: session %q", ErrAlreadyResumed, session)
	case err != nil:
		return nil, nil, fmt.Errorf("agentkit: taking the pause of session %q: %w", session, err)
	case !bytes.Equal(taken, state): // replaced by a writer that does not lock the session
		return nil, nil, fmt.Errorf("%w: session %q: its pause changed while it was resumed", ErrAlreadyResumed, session)
	}
	return p, box, nil
}

// SessionPause returns the pause of a paused session, to show its pending calls to whoever
// decides; an error wrapping ErrNoPause when the session is not paused.
func (a *Agent) SessionPause(ctx context.Context, session string) (*Pause, error) {
	ps, ok := a.opts.Memory.(PauseStore)
	if !ok {
		return nil, fmt.Errorf("%w: session %q", ErrNoPause, session)
	}
	_, p, err := a.storedPause(ctx, ps, session)
	return p, err
}

// storedPause loads and decodes the session's pause.
func (a *Agent) storedPause(ctx context.Context, ps PauseStore, session string) ([]byte, *Pause, error) {
	state, err := ps.LoadPause(ctx, session)
	if err != nil {
		return nil, nil, fmt.Errorf("agentkit: the pause of session %q: %w", session, err)
	}
	var p Pause
	if err := json.Unmarshal(state, &p); err != nil {
		return nil, nil, fmt.Errorf("%w: session %q: %w", ErrInvalidPause, session, err)
	}
	if p.Session != session {
		return nil, nil, fmt.Errorf("%w: the pause stored for session %q belongs to session %q", ErrInvalidPause, session, p.Session)
	}
	return state, &p, nil
}

// savePause keeps a RunSession's pause in its PauseStore.
func (r *run) savePause(ctx context.Context, p *Pause) error {
	state, err := json.Marshal(p)
	if err == nil {
		err = r.store.(PauseStore).SavePause(context.WithoutCancel(ctx), r.session, state)
	}
	if err != nil {
		return fmt.Errorf("agentkit: saving the pause of session %q: %w", r.session, err)
	}
	return nil
}

// pausedSession refuses a RunSession on a session that has a pause (ErrSessionPaused):
// its history ends before the paused turn, and a new message would leave the pending calls
// undecided. It returns nil when the session has no pause, or when the Memory keeps none.
func (r *run) pausedSession(ctx context.Context) error {
	ps, ok := r.store.(PauseStore)
	if !ok {
		return nil
	}
	_, p, err := r.a.storedPause(ctx, ps, r.session)
	switch {
	case errors.Is(err, ErrNoPause):
		return nil
	case err != nil:
		return err
	}
	r.res.Pause = p
	return fmt.Errorf("%w (session %q, pause %s)", ErrSessionPaused, r.session, p.ID)
}

// canPause reports whether the run can pause: a RunSession only when its Memory keeps
// pauses. A session run that cannot answers its pending calls not executed.
func (r *run) canPause() bool {
	if r.store == nil {
		return true
	}
	_, ok := r.store.(PauseStore)
	return ok
}
