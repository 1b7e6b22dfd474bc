package memorytest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
)

// flawed is a store with one chosen flaw.
type flawed struct {
	flaw string
	mu   sync.Mutex
	m    map[string][]openai.ChatCompletionMessage
}

func (s *flawed) Load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error) {
	return s.load(ctx, session)
}

// LoadRecent is the partial load of the flaws about it; the others load everything.
func (s *flawed) LoadRecent(ctx context.Context, session string, turns int) ([]openai.ChatCompletionMessage, int, error) {
	msgs, err := s.load(ctx, session)
	if err != nil {
		return nil, 0, err
	}
	var users []int
	for i, m := range msgs {
		if m.Role == openai.ChatMessageRoleUser {
			users = append(users, i)
		}
	}
	if len(users)-1 <= turns {
		return msgs, 0, nil
	}
	first, from := users[0], users[len(users)-turns]
	switch s.flaw {
	case "omits the first user message":
		first--
	case "omits too many turns":
		if turns == 1 {
			return msgs, 0, nil
		}
		from = users[len(users)-turns+1]
	case "cuts inside a turn":
		from++
	}
	out := append(append([]openai.ChatCompletionMessage(nil), msgs[:first+1]...), msgs[from:]...)
	return out, from - first - 1, nil
}

func (s *flawed) CallIDUsed(ctx context.Context, session, id string) (bool, error) {
	if s.flaw == "CallIDUsed knows only what it loaded" {
		return false, nil
	}
	if id == "" && s.flaw != "CallIDUsed knows the empty id" {
		return false, nil
	}
	msgs, err := s.load(ctx, session)
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.ID == id {
				return true, err
			}
		}
	}
	return false, err
}

func (s *flawed) load(ctx context.Context, session string) ([]openai.ChatCompletionMessage, error) {
	if err := ctx.Err(); err != nil && s.flaw != "ignores context" {
		return nil, err
	}
	if s.flaw == "one session for all" {
		session = ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got, ok := s.m[session]
	switch {
	case !ok && s.flaw == "unknown session is an error":
		return nil, errors.New("no such session")
	case s.flaw == "shares loaded slices":
		return got, nil
	case s.flaw == "reverses":
		got = slices.Clone(got)
		slices.Reverse(got)
		return got, nil
	}
	out := make([]openai.ChatCompletionMessage, len(got))
	total := 0
	for _, m := range got {
		total += len(m.ToolCalls)
	}
	pool := make([]openai.ToolCall, 0, total) // for the flaw "pools tool calls uncapped"
	for i, m := range got {
		if s.flaw == "pools tool calls uncapped" && m.ToolCalls != nil {
			start := len(pool)
			pool = append(pool, m.ToolCalls...)
			m.ToolCalls = pool[start:len(pool)]
		} else {
			m.ToolCalls = slices.Clone(m.ToolCalls)
		}
		out[i] = m
	}
	return out, nil
}

func (s *flawed) Append(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) error {
	if err := ctx.Err(); err != nil && s.flaw != "ignores context" {
		return err
	}
	if s.flaw == "one session for all" {
		session = ""
	}
	if s.flaw == "not atomic" {
		for _, m := range msgs {
			s.mu.Lock()
			s.m[session] = append(s.m[session], m)
			s.mu.Unlock()
			time.Sleep(50 * time.Microsecond)
		}
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flaw == "keeps the caller's slices" {
		s.m[session] = append(s.m[session], msgs...)
		if len(s.m[session]) == len(msgs) {
			s.m[session] = msgs // the caller's array itself
		}
		return nil
	}
	for _, m := range msgs {
		m.ToolCalls = slices.Clone(m.ToolCalls)
		s.m[session] = append(s.m[session], m)
	}
	return nil
}

// grantsTwice is a SessionLocker that never refuses.
type grantsTwice struct{ *flawed }

func (g grantsTwice) Lock(ctx context.Context, session string) (func(), error) {
	return func() {}, nil
}

// claimsTwice is a Ledger whose every claim wins.
type claimsTwice struct{ *flawed }

func (claimsTwice) Claim(context.Context, string) (bool, error) { return true, nil }

// takesTwice is a PauseStore whose TakePause leaves the pause in place.
type takesTwice struct {
	*flawed
	mu     sync.Mutex
	pauses map[string][]byte
}

func (s *takesTwice) SavePause(_ context.Context, session string, state []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pauses[session] = slices.Clone(state)
	return nil
}

func (s *takesTwice) LoadPause(_ context.Context, session string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pauses[session]; ok {
		return slices.Clone(p), nil
	}
	return nil, agentkit.ErrNoPause
}

func (s *takesTwice) TakePause(ctx context.Context, session string) ([]byte, error) {
	return s.LoadPause(ctx, session)
}

// forgetsSummaries is a SummaryStore that keeps nothing.
type forgetsSummaries struct{ *flawed }

func (forgetsSummaries) LoadSummary(context.Context, string) (memory.Summary, error) {
	return memory.Summary{}, nil
}
func (forgetsSummaries) SaveSummary(context.Context, string, memory.Summary) error { return nil }

// searchesOffByOne is a Searcher that reports each match one position off.
type searchesOffByOne struct{ *flawed }

func (s searchesOffByOne) Search(ctx context.Context, session string, q memory.Query) ([]memory.Match, error) {
	msgs, err := s.Load(ctx, session)
	if err != nil {
		return nil, err
	}
	found := memory.SearchMessages(msgs, q)
	for i := range found {
		found[i].Index++
	}
	return found, nil
}

var flaws = map[string]string{ // flaw → the subtest that must catch it
	"forgets summaries":           "SummaryStore",
	"searches off by one":         "Searcher",
	"ignores context":             "CanceledContext",
	"one session for all":         "IsolatesSessions",
	"unknown session is an error": "UnknownSessionIsEmpty",
	"shares loaded slices":        "CopiesLoaded",
	"reverses":                    "KeepsOrder",
	"not atomic":                  "ConcurrentAppendsOneSession",
	"keeps the caller's slices":   "CopiesAppended",
	"grants a held session":       "Locker",
	"claims twice":                "Ledger",
	"takes a pause twice":         "PauseStore",
	"pools tool calls uncapped":   "LoadedSliceIsTheCallers",

	"CallIDUsed knows only what it loaded": "RecentTurns",
	"CallIDUsed knows the empty id":        "RecentTurns",
	"omits the first user message":         "RecentTurns",
	"omits too many turns":                 "RecentTurns",
	"cuts inside a turn":                   "RecentTurns",
}

func newFlawed(flaw string) agentkit.Memory {
	f := &flawed{flaw: flaw, m: map[string][]openai.ChatCompletionMessage{}}
	switch flaw {
	case "grants a held session":
		return grantsTwice{flawed: f}
	case "claims twice":
		return claimsTwice{flawed: f}
	case "forgets summaries":
		return forgetsSummaries{flawed: f}
	case "searches off by one":
		return searchesOffByOne{flawed: f}
	case "takes a pause twice":
		return &takesTwice{flawed: f, pauses: map[string][]byte{}}
	}
	return f
}

// The kit catches each flaw: run in a child process (a failing kit fails its test), the
// subtest named for the flaw fails.
func TestKitCatchesFlawedStores(t *testing.T) {
	if flaw := os.Getenv("MEMORYTEST_FLAW"); flaw != "" {
		memorytest.Run(t, func(t *testing.T) agentkit.Memory { return newFlawed(flaw) })
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	for flaw, subtest := range flaws {
		t.Run(flaw, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestKitCatchesFlawedStores$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "MEMORYTEST_FLAW="+flaw)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the kit passed a store that %s", flaw)
			}
			if !strings.Contains(string(out), "--- FAIL: TestKitCatchesFlawedStores/"+subtest) {
				t.Errorf("subtest %s did not fail for a store that %s:\n%s", subtest, flaw, out)
			}
		})
	}
}

// The flawless version of the same store passes.
func TestKitPassesSoundStores(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return newFlawed("") })
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return memory.NewInMemory() })
}
