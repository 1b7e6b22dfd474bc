package agentkit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// PauseVersion is the version of the Pause format this package writes. Resume reads every
// version up to it (testdata/pause holds a state of each) and refuses a newer one with
// ErrPauseVersion.
const PauseVersion = 1

// Pause is the state of a run that paused (Result.Stop is StopPaused): a turn of the model
// made calls that wait for a decision from outside the run (see tool.KindPending). The
// turn's other calls ran; their results are here, by call id, with every pending call. Store
// it anywhere — it is JSON, see below — and continue the run with [Agent.Resume], in this
// process or another, with the same Agent configuration.
//
// Its JSON (encoding/json of this struct) is the documented, versioned format:
//
//	{"version":1, "id":"…", "messages":[…], "new":2, "results":[{"id":"…","kind":"","content":"…"}],
//	 "pending":[{"id":"…","name":"…","arguments":{…},"kind":"approval"}],
//	 "iteration":1, "usage":{…}, "cost":{…}, "tool_calls":1, "tool_calls_out":true, "guard":{"prev":[…],"repeats":1}, "mac":"…"}
//
// A Pause is made as JSON reads it back — text that is not UTF-8 holds U+FFFD, arguments are
// compacted — so that its signature holds after any number of trips through encoding/json.
//
// Messages ends with the assistant message whose calls paused: the only place it is, since
// a provider rejects it without a result for each call. Result.Messages of the paused run, and
// a paused session, stop before it.
//
// A Pause signed with Options.PauseKey carries MAC; Resume verifies it before anything else.
// One without a key is as trustworthy as where it was kept: hand a client a signed one, or
// keep it server-side (RunSession does, in a PauseStore).
//
// The zero Pause is not a state: Resume refuses it (ErrPauseVersion). Resume does not modify
// the Pause it is given.
type Pause struct {
	// Version is the format's version, PauseVersion when written by this package.
	Version int `json:"version"`
	// ID is random, unique to this pause: Resume claims it in Options.Ledger, so that a
	// pause is resumed once.
	ID string `json:"id"`
	// Messages is the transcript up to and including the assistant message with the calls.
	Messages []openai.ChatCompletionMessage `json:"messages"`
	// New is Result.New of the run: the index in Messages of its first added message.
	New int `json:"new"`
	// Session is the RunSession's session; empty for other runs.
	Session string `json:"session,omitempty"`
	// Omitted is Result.Omitted of a RunSession: the session's messages Messages leaves out.
	Omitted int `json:"omitted,omitempty"`
	// Results are the results of the turn's calls that ran (or were refused), by call id.
	Results []PausedResult `json:"results"`
	// Pending are the calls that wait for a decision, in emission order.
	Pending []PendingCall `json:"pending"`
	// Iteration is the model call whose reply made the calls: the resumed run goes on with
	// the next one, within Options.MaxIterations.
	Iteration int `json:"iteration"`
	// Usage is the run's token usage so far.
	Usage Usage `json:"usage"`
	// Cost is the run's cost so far (Result.Cost).
	Cost Cost `json:"cost,omitzero"`
	// ToolCalls counts the tool calls the run ran so far, for its Budget.
	ToolCalls int `json:"tool_calls,omitempty"`
	// ToolCallsOut says that a call of the paused turn was refused for the Budget's
	// tool-call limit: the resumed run stops before its next model call, as the run would
	// have (or, with FinalAnswerOnLimit, makes the final request), unless the budget of the
	// Resume has tool calls left.
	ToolCallsOut bool `json:"tool_calls_out,omitempty"`
	// Guard is the state of the loop guard (Options.LoopLimit): the canonical keys of the
	// turn's calls and how many turns in a row made them.
	Guard GuardState `json:"guard"`
	// MAC is the HMAC-SHA256 of the state with Options.PauseKey (see Options.PauseKey); nil
	// when the agent has no key.
	MAC []byte `json:"mac,omitempty"`
}

// PausedResult is the result of a call of the paused turn that did not wait. The zero value
// is the success, with empty content, of the call of the empty id.
type PausedResult struct {
	// ID is the call's id.
	ID string `json:"id"`
	// Kind is the result's kind (empty for a success).
	Kind tool.Kind `json:"kind"`
	// Content is what the model reads.
	Content string `json:"content"`
}

// PendingKind says what a pending call waits for.
type PendingKind string

const (
	// PendingApproval: a person's approval (Options.RequireApproval, middleware.RequireApproval).
	PendingApproval PendingKind = "approval"
	// PendingDeferred: the result of a tool the application runs (tool.Deferred).
	PendingDeferred PendingKind = "deferred"
)

// PendingCall is a call that waits for a decision. The zero value names no call and is
// refused by Resume.
type PendingCall struct {
	// ID is the call's id: the Decision for it names it.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments are the call's canonical validated arguments, what the tool would run with:
	// show them to whoever decides.
	Arguments json.RawMessage `json:"arguments"`
	// Kind says what the call waits for.
	Kind PendingKind `json:"kind"`
}

// GuardState is the loop guard's state in a Pause. The zero value is a guard that has seen
// no turn.
type GuardState struct {
	// Prev are the canonical keys of the paused turn's calls, sorted.
	Prev []string `json:"prev"`
	// Repeats is how many turns in a row made those calls.
	Repeats int `json:"repeats"`
}

// Ledger records which pauses were resumed, so that each is resumed once (Options.Ledger).
// *memory.InMemory and the SQLite store of memory/sqlite are Ledgers; memorytest checks one.
//
// Resume claims a pause before it runs anything, so its guarantee is at most once: a process
// that dies (or a context canceled) after the claim and before the approved calls end
// leaves them run once or not at all, and the pause cannot be resumed again. Claims are
// never removed: a ledger grows by one key per resumed pause.
type Ledger interface {
	// Claim records key and reports whether this call recorded it: true for the first
	// claimer of a key only, however many claim it, concurrently or in other processes
	// sharing the ledger. A claim is never undone. An error claims nothing the caller may
	// rely on: Resume then runs nothing.
	Claim(ctx context.Context, key string) (bool, error)
}

// Errors of pausing and resuming, for errors.Is.
var (
	// ErrPaused: the run paused on calls that wait for a decision (StopPaused); Result.Pause
	// holds its state.
	ErrPaused = errors.New("agentkit: the run paused: calls wait for a decision")
	// ErrAlreadyResumed: the pause was resumed before (its id is claimed in the Ledger, or
	// the session's pause was taken); nothing ran.
	ErrAlreadyResumed = errors.New("agentkit: the pause was already resumed")
	// ErrPauseTampered: the pause's MAC is missing or does not match its content under
	// Options.PauseKey; nothing ran.
	ErrPauseTampered = errors.New("agentkit: the paused state was altered or is not signed")
	// ErrPauseVersion: the pause's Version is not one this package reads.
	ErrPauseVersion = errors.New("agentkit: unknown pause version")
	// ErrInvalidPause: the pause is not a consistent state (no assistant message with the
	// calls, a call neither answered nor pending, a history that does not validate).
	ErrInvalidPause = errors.New("agentkit: invalid paused state")
	// ErrDecision: the decisions do not match the pending calls (one missing, unknown or
	// given twice, or a decision a call cannot take); nothing ran.
	ErrDecision = errors.New("agentkit: invalid decisions")
	// ErrNoLedger: Resume on an agent without Options.Ledger, which could not tell a second
	// resume of the pause from the first.
	ErrNoLedger = errors.New("agentkit: Resume needs Options.Ledger")
)

// pauseOf builds the Pause of a turn whose records include pending ones; Messages ends with
// the turn's assistant message.
func (r *run) pauseOf(recs []CallRecord) (*Pause, error) {
	p := &Pause{
		Version:      PauseVersion,
		ID:           rand.Text(),
		Messages:     slices.Clone(r.res.Messages), // the transcript's array is the caller's, once the run ends
		New:          r.res.New,
		Session:      r.session,
		Omitted:      r.res.Omitted,
		Iteration:    r.res.Iterations,
		Usage:        r.res.Usage,
		Cost:         r.res.Cost,
		ToolCalls:    r.toolCalls,
		Guard:        GuardState{Prev: r.guard.prev, Repeats: r.guard.repeats},
		ToolCallsOut: r.toolsOut,
	}
	for _, rec := range recs {
		if rec.Result.Kind != tool.KindPending {
			p.Results = append(p.Results, PausedResult{ID: rec.Call.ID, Kind: rec.Result.Kind, Content: rec.Result.Content})
			continue
		}
		pc := PendingCall{ID: rec.Call.ID, Name: rec.Call.Name, Kind: PendingApproval, Arguments: pendingArguments(rec)}
		if errors.Is(rec.Result.Err, tool.ErrDeferred) {
			pc.Kind = PendingDeferred
		}
		p.Pending = append(p.Pending, pc)
	}
	// The state is the one JSON gives back, which differs from the run's where text is not
	// UTF-8 (JSON makes such bytes U+FFFD): signed as it is, it would not verify once read.
	p, err := asJSON(p)
	if err != nil {
		return nil, err
	}
	if key := r.a.opts.PauseKey; key != nil {
		mac, err := pauseMAC(key, p)
		if err != nil {
			return nil, err
		}
		p.MAC = mac
	}
	return p, nil
}

// asJSON returns p as encoding/json reads it back.
func asJSON(p *Pause) (*Pause, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("agentkit: encoding the paused state: %w", err)
	}
	var q Pause
	if err := json.Unmarshal(b, &q); err != nil {
		return nil, fmt.Errorf("agentkit: decoding the paused state: %w", err)
	}
	return &q, nil
}

// pendingArguments returns the canonical arguments of a pending call: its result's Value, as
// tool.Pending sets it, or else the tool's Arguments of the raw text.
func pendingArguments(rec CallRecord) json.RawMessage {
	if args, ok := rec.Result.Value.(json.RawMessage); ok && json.Valid(args) {
		return args
	}
	if rec.Call.Tool != nil {
		if args, _, err := rec.Call.Tool.Arguments(rec.Call.Arguments); err == nil {
			return args
		}
	}
	b, _ := json.Marshal(rec.Call.Arguments) // as a JSON string: still JSON, and still what was sent
	return b
}

// pauseMAC is the HMAC-SHA256, under key, of: a domain label, the version, the pause id, each
// pending call's id, name, kind and the SHA-256 of its compacted arguments, and the SHA-256
// of the JSON of the rest of the state (transcript, results, counters). The rest is covered
// too: a client that could rewrite it could rewrite the system prompt, a result the model
// reads, or reset the run's bounds. Every field is length-prefixed, so no two states encode
// alike. The rest is the JSON of this package's struct, not the bytes a state was read from:
// a field added to Pause must be omitempty (or left out of the rest for older versions), or
// no state signed before verifies (TestResumeGoldenPauses would fail). Decisions are not
// signed: they are the decider's, and come with the Resume.
func pauseMAC(key []byte, p *Pause) ([]byte, error) {
	m := hmac.New(sha256.New, key)
	field := func(b []byte) {
		binary.Write(m, binary.BigEndian, uint64(len(b)))
		m.Write(b)
	}
	field([]byte("toolcall.pause"))
	field(binary.BigEndian.AppendUint64(nil, uint64(p.Version)))
	field([]byte(p.ID))
	field(binary.BigEndian.AppendUint64(nil, uint64(len(p.Pending))))
	for _, c := range p.Pending {
		field([]byte(c.ID))
		field([]byte(c.Name))
		field([]byte(c.Kind))
		field(digest(sha256.New(), compact(c.Arguments)))
	}
	rest := *p
	rest.MAC, rest.Pending = nil, nil
	b, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("agentkit: encoding the paused state: %w", err)
	}
	field(digest(sha256.New(), b))
	return m.Sum(nil), nil
}

func digest(h hash.Hash, b []byte) []byte {
	h.Write(b)
	return h.Sum(nil)
}

// compact returns b without insignificant whitespace, or b itself when it is not JSON: the
// digest of arguments does not depend on how the file holding them was indented.
func compact(b json.RawMessage) []byte {
	if c, err := json.Marshal(b); err == nil { // a RawMessage marshals compacted
		return c
	}
	return b
}

// PauseStore is an optional interface of a Memory that keeps the pause of a session: a
// RunSession that pauses saves its state there (the session itself then ends before the
// paused turn), and ResumeSession takes it back. TakePause is what makes a session's pause
// resumed once: of two concurrent takers, one gets the state, the other ErrNoPause. The state
// stays server-side, so it needs no signature; it is the JSON of a Pause.
type PauseStore interface {
	// SavePause keeps state as the session's pause, replacing any.
	SavePause(ctx context.Context, session string, state []byte) error
	// LoadPause returns the session's pause without taking it, or an error wrapping
	// ErrNoPause when it has none.
	LoadPause(ctx context.Context, session string) ([]byte, error)
	// TakePause removes the session's pause and returns it, atomically, or returns an error
	// wrapping ErrNoPause when it has none.
	TakePause(ctx context.Context, session string) ([]byte, error)
}

// ErrNoPause: the session has no pause (a PauseStore's LoadPause and TakePause; for
// ResumeSession, the session is not paused, or its pause was taken by another resume).
var ErrNoPause = errors.New("agentkit: the session has no pause")
