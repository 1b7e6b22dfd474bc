package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/sqlite"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

// extrasServer is a provider that, like OpenRouter with Gemini, signs each tool call: its
// reply to a user message is a call "call_<n>" whose message carries reasoning_details with
// the signature "sig-<n>", and whose call carries extra_content; its reply to tool results
// is an answer. It records the assistant messages with calls of every request.
type extrasServer struct {
	mu    sync.Mutex
	n     int
	calls [][]map[string]json.RawMessage // per request: its assistant messages with calls
}

func (s *extrasServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	s.mu.Lock()
	var withCalls []map[string]json.RawMessage
	for _, m := range req.Messages {
		if _, ok := m["tool_calls"]; ok {
			withCalls = append(withCalls, m)
		}
	}
	s.calls = append(s.calls, withCalls)
	var role string
	_ = json.Unmarshal(req.Messages[len(req.Messages)-1]["role"], &role)
	reply := `{"role":"assistant","content":"done"}`
	if role == "user" {
		s.n++
		reply = fmt.Sprintf(`{"role":"assistant","content":null,"reasoning_details":[{"type":"reasoning.encrypted","data":"sig-%d","index":0}],`+
			`"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"lookup","arguments":"{}"},"extra_content":{"google":{"thought_signature":"ts-%d"}}}]}`, s.n, s.n, s.n)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":%s,"finish_reason":"stop"}]}`, reply)
}

// check reports every assistant message with calls, in every request, whose extras are not
// those the server gave it.
func (s *extrasServer) check(t *testing.T) (requests, carried int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, msgs := range s.calls {
		for _, m := range msgs {
			var calls []struct {
				ID           string          `json:"id"`
				ExtraContent json.RawMessage `json:"extra_content"`
			}
			if err := json.Unmarshal(m["tool_calls"], &calls); err != nil || len(calls) != 1 {
				t.Fatalf("request %d: tool_calls %s", i, m["tool_calls"])
			}
			n := strings.TrimPrefix(calls[0].ID, "call_")
			got := []string{string(m["reasoning_details"]), string(calls[0].ExtraContent)}
			want := []string{`[{"type":"reasoning.encrypted","data":"sig-` + n + `","index":0}]`, `{"google":{"thought_signature":"ts-` + n + `"}}`}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request %d, the message of %s: extras (-received +sent back):\n%s", i, calls[0].ID, diff)
			}
			carried++
		}
	}
	return len(s.calls), carried
}

// TestProviderExtrasSurviveSessions: the extras a provider put on its messages go back
// unchanged in every later request: within the run, after the session is stored and loaded
// again (InMemory; SQLite, closed and reopened between turns: a restart), and through every
// context strategy's view.
func TestProviderExtrasSurviveSessions(t *testing.T) {
	summarizer := memory.SummarizerFunc(func(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error) {
		return "summary", nil
	})
	strategies := []struct {
		name     string
		strategy agentkit.ContextStrategy
	}{
		{"everything", nil},
		{"window", memory.Window(memory.WindowOptions{MaxTurns: 2})},
		{"clear tool results", memory.ClearToolResults(1)},
		{"fold", memory.Fold(memory.FoldOptions{Trigger: 120, Keep: 1, Summarizer: summarizer})},
		{"chain", memory.Chain(memory.Fold(memory.FoldOptions{Trigger: 400, Keep: 2, Summarizer: summarizer}), memory.ClearToolResults(1), memory.Window(memory.WindowOptions{MaxTurns: 3}))},
	}
	lookup := tool.New("lookup", "Looks something up.", func(ctx context.Context, in struct{}) (string, error) {
		return strings.Repeat("result ", 20), nil
	})
	for _, store := range []string{"inmemory", "sqlite"} {
		for _, st := range strategies {
			t.Run(store+"/"+st.name, func(t *testing.T) {
				srv := &extrasServer{}
				hs := httptest.NewServer(srv)
				defer hs.Close()
				path := filepath.Join(t.TempDir(), "s.db")
				var mem agentkit.Memory = memory.NewInMemory()
				const turns = 5
				for turn := 0; turn < turns; turn++ {
					var db *sqlite.Store
					if store == "sqlite" {
						var err error
						if db, err = sqlite.Open(path, nil); err != nil {
							t.Fatal(err)
						}
						mem = db
					}
					agent := agentkit.New(openaichat.New(hs.URL+"/v1", nil), &agentkit.Options{Model: "m", Tools: []*tool.Tool{lookup}, Memory: mem, Context: st.strategy})
					res, err := agent.RunSession(context.Background(), "s", fmt.Sprintf("question %d", turn))
					if err != nil {
						t.Fatalf("turn %d: %v", turn, err)
					}
					if err := agentkit.ValidateHistory(res.Messages); err != nil {
						t.Fatalf("turn %d: %v", turn, err)
					}
					if db != nil {
						if err := db.Close(); err != nil {
							t.Fatal(err)
						}
					}
				}
				requests, carried := srv.check(t)
				if requests != 2*turns {
					t.Errorf("%d requests, want %d", requests, 2*turns)
				}
				// Each run's second request carries its own call at least; later runs carry
				// the earlier calls their view keeps.
				if carried < turns {
					t.Errorf("%d assistant messages with calls sent back, want at least %d", carried, turns)
				}
			})
		}
	}
}
