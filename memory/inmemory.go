package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// InMemory is a Memory that keeps sessions in the process's memory: the zero-configuration
// default, for tests, demos and single-process services that can lose their conversations on
// restart. It is safe for concurrent use, and its zero value is ready to use.
//
// Append and Load copy the messages, so neither the caller's later changes nor the store's
// reach the other. It is also an agentkit.Ledger and an agentkit.PauseStore, for paused runs. Lock waits (until its context is done) for the run holding the session:
// runs of one session are serialized, never refused.
type InMemory struct {
	mu        sync.RWMutex
	sessions  map[string]stored // the zero stored for an unknown session
	summaries map[string]Summary
	locks     Locks
	claims    map[string]struct{} // agentkit.Ledger
	pauses    map[string][]byte   // agentkit.PauseStore
}

var (
	_ agentkit.Memory        = (*InMemory)(nil)
	_ agentkit.SessionLocker = (*InMemory)(nil)
	_ agentkit.RecentLoader  = (*InMemory)(nil)
	_ Searcher               = (*InMemory)(nil)
	_ SummaryStore           = (*InMemory)(nil)
	_ agentkit.Ledger        = (*InMemory)(nil)
	_ agentkit.PauseStore    = (*InMemory)(nil)
)

// NewInMemory returns an empty in-memory store.
func NewInMemory() *InMemory { return &InMemory{} }

// stored is one session of an InMemory.
type stored struct {
	msgs  []openai.ChatCompletionMessage
	users []int               // the indexes in msgs of the user messages: where turns begin
	ids   map[string]struct{} // the tool call ids of msgs, but the empty one
}

// Load returns a copy of the session's history, with room for a few more messages (the run
// that loads it appends its own); empty for an unknown session.
func (s *InMemory) Load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error) {
	msgs, _, err := s.LoadRecent(ctx, session, 0)
	return msgs, err
}

// LoadRecent returns a copy of the session's messages up to its first user message and its
// latest turns (agentkit.RecentLoader): a load then copies what a run sends, not the whole
// session. turns < 1 loads the whole session.
func (s *InMemory) LoadRecent(ctx context.Context, session string, turns int) ([]openai.ChatCompletionMessage, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("memory: loading session %q: %w", session, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.sessions[session]
	if len(st.msgs) == 0 {
		return nil, 0, nil
	}
	h := st.msgs
	if turns < 1 || len(st.users)-1 <= turns {
		return appendClones(make([]openai.ChatCompletionMessage, 0, len(h)+loadRoom), h), 0, nil
	}
	first, from := st.users[0], st.users[len(st.users)-turns]
	out := make([]openai.ChatCompletionMessage, 0, first+1+len(h)-from+loadRoom)
	out = appendClones(out, h[:first+1])
	return appendClones(out, h[from:]), from - first - 1, nil
}

// CallIDUsed reports whether a tool call of the session uses id (agentkit.RecentLoader).
func (s *InMemory) CallIDUsed(ctx context.Context, session, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("memory: session %q: %w", session, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.sessions[session].ids[id]
	return ok, nil
}

// Append adds a copy of msgs to the end of the session's history, atomically: concurrent
// appends to one session never interleave their messages.
func (s *InMemory) Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: appending to session %q: %w", session, err)
	}
	if len(msgs) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions == nil {
		s.sessions = make(map[string]stored)
	}
	st := s.sessions[session]
	if st.ids == nil {
		st.ids = make(map[string]struct{})
	}
	for i := range msgs {
		if msgs[i].Role == openai.ChatMessageRoleUser {
			st.users = append(st.users, len(st.msgs)+i)
		}
		for _, tc := range msgs[i].ToolCalls {
			if tc.ID != "" { // a call without an id does not make the empty id used
				st.ids[tc.ID] = struct{}{}
			}
		}
	}
	st.msgs = appendClones(st.msgs, msgs)
	s.sessions[session] = st
	return nil
}

// Claim records key in the store's ledger (agentkit.Ledger): true for its first claimer
// only. Claims last as long as the store.
func (s *InMemory) Claim(ctx context.Context, key string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("memory: claiming %q: %w", key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.claims[key]; ok {
		return false, nil
	}
	if s.claims == nil {
		s.claims = make(map[string]struct{})
	}
	s.claims[key] = struct{}{}
	return true, nil
}

// SavePause keeps a copy of state as the session's pause (agentkit.PauseStore).
func (s *InMemory) SavePause(ctx context.Context, session string, state []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: saving the pause of session %q: %w", session, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pauses == nil {
		s.pauses = make(map[string][]byte)
	}
	s.pauses[session] = slices.Clone(state)
	return nil
}

// LoadPause returns a copy of the session's pause (agentkit.PauseStore).
func (s *InMemory) LoadPause(ctx context.Context, session string) ([]byte, error) {
	return s.pause(ctx, session, false)
}

// TakePause removes the session's pause and returns it, atomically (agentkit.PauseStore).
func (s *InMemory) TakePause(ctx context.Context, session string) ([]byte, error) {
	return s.pause(ctx, session, true)
}

func (s *InMemory) pause(ctx context.Context, session string, take bool) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: the pause of session %q: %w", session, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	state, ok := s.pauses[session]
	if !ok {
		return nil, fmt.Errorf("memory: session %q: %w", session, agentkit.ErrNoPause)
	}
	if take {
		delete(s.pauses, session)
		return state, nil
	}
	return slices.Clone(state), nil
}

// Lock waits until no other run holds the session, then holds it until unlock is called.
// When ctx is done first, the error wraps both agentkit.ErrSessionBusy and ctx.Err().
func (s *InMemory) Lock(ctx context.Context, session string) (unlock func(), err error) {
	return s.locks.Lock(ctx, session)
}

// Search searches the session's history (see [SearchMessages]).
func (s *InMemory) Search(ctx context.Context, session string, q Query) ([]Match, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("memory: searching session %q: %w", session, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	matches := SearchMessages(s.sessions[session].msgs, q)
	for i := range matches {
		matches[i].Message = cloneMessage(matches[i].Message)
	}
	return matches, nil
}

// LoadSummary returns the summary Fold saved for the session.
func (s *InMemory) LoadSummary(ctx context.Context, session string) (Summary, error) {
	if err := ctx.Err(); err != nil {
		return Summary{}, fmt.Errorf("memory: loading the summary of session %q: %w", session, err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.summaries[session], nil
}

// SaveSummary keeps the session's summary for Fold.
func (s *InMemory) SaveSummary(ctx context.Context, session string, sum Summary) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: saving the summary of session %q: %w", session, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.summaries == nil {
		s.summaries = make(map[string]Summary)
	}
	s.summaries[session] = sum
	return nil
}

// loadRoom is the spare capacity of a loaded history: the system prompt and the first
// messages of the run that loads it fit without a new array.
const loadRoom = 8

// appendClones appends deep copies of msgs to dst: the caller and the store may then modify
// their own copy without the other seeing it.
func appendClones(dst, msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	for _, m := range msgs {
		dst = append(dst, cloneMessage(m))
	}
	return dst
}

// cloneMessage copies everything m points to: tool calls and their stream indexes, parts and
// their image URLs, the legacy function call.
func cloneMessage(m openai.ChatCompletionMessage) openai.ChatCompletionMessage {
	m.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range m.ToolCalls {
		if p := m.ToolCalls[i].Index; p != nil {
			n := *p
			m.ToolCalls[i].Index = &n
		}
	}
	m.MultiContent = slices.Clone(m.MultiContent)
	for i := range m.MultiContent {
		if u := m.MultiContent[i].ImageURL; u != nil {
			c := *u
			m.MultiContent[i].ImageURL = &c
		}
	}
	if m.FunctionCall != nil {
		f := *m.FunctionCall
		m.FunctionCall = &f
	}
	return m
}
