package memory

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	sqlite "modernc.org/sqlite"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/tool"
)

// cacheLookups returns the pages the only connection of a ":memory:" SQLite looked up
// since the last call (SQLITE_DBSTATUS_CACHE_HIT: in memory, every page read is a hit).
func cacheLookups(t *testing.T, s *SQLite) int {
	t.Helper()
	c, err := s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close() // the only connection: released before the next query
	var hits int
	if err := c.Raw(func(dc any) error {
		var err error
		hits, _, err = dc.(sqlite.DBStatus).Status(sqlite.DBStatusCacheHit, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return hits
}

// A partial load reads only the rows it keeps: the pages it reads do not grow with the turns
// it leaves out. (A review found one query for "seq <= first OR seq >= from" planned as a
// walk of the whole session: SQLite does not use seq for an OR of two ranges on a WITHOUT
// ROWID table. load now asks for the two ranges apart.)
func TestSQLitePartialLoadReadsOnlyKeptRows(t *testing.T) {
	s, err := OpenSQLite(":memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	long := strings.Repeat("x", 1000)
	fill := func(session string, turns int) {
		msgs := []openai.ChatCompletionMessage{memorytest.User("task"), memorytest.Assistant("ok")}
		for k := range turns {
			msgs = append(msgs, memorytest.User("q"+strconv.Itoa(k)+long), memorytest.Assistant("a"+long))
		}
		if err := s.Append(ctx, session, msgs); err != nil {
			t.Fatal(err)
		}
	}
	fill("short", 6)
	fill("long", 2000)
	pages := map[string]int{}
	for _, session := range []string{"short", "long"} {
		cacheLookups(t, s)
		h, err := s.Load(ctx, session, agentkit.LoadOptions{RecentTurns: 2})
		if err != nil {
			t.Fatal(err)
		}
		pages[session] = cacheLookups(t, s)
		if h.Omitted == 0 || len(h.Messages) != 1+2*2 {
			t.Fatalf("session %s: loaded %d messages, Omitted %d; want 5 and some left out", session, len(h.Messages), h.Omitted)
		}
	}
	if pages["long"] > 2*pages["short"]+20 {
		t.Errorf("a partial load of the 2 latest turns read %d pages from a session of 2000 turns, %d from one of 6: it reads the rows it leaves out (want the query to seek to both ranges, e.g. a UNION ALL of \"seq <= ?\" and \"seq >= ?\")",
			pages["long"], pages["short"])
	}
}

// A version-1 file is upgraded when opened, but a process still running version 1 (a
// rolling deploy; several processes share one file, see Lock) may keep appending to it:
// its rows are indexed too (the trigger messages_index), so CallIDUsed knows their call ids
// and RunSession never gives a new call one of them. (A review found that indexing in
// Append alone missed them, and the stored session then held an id twice.)
func TestSQLiteRowsOfAVersion1WriterAreIndexed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	raw := oldDatabase(t, path, schemaV1)
	defer raw.Close()
	// v1Append is version 1's Append: the rows only.
	v1Append := func(msgs ...openai.ChatCompletionMessage) {
		t.Helper()
		var next int64
		if err := raw.QueryRow("SELECT COALESCE(MAX(seq)+1, 0) FROM messages WHERE session = 's'").Scan(&next); err != nil {
			t.Fatal(err)
		}
		for i, m := range msgs {
			b, _ := json.Marshal(m)
			if _, err := raw.Exec("INSERT INTO messages (session, seq, message) VALUES ('s', ?, ?)", next+int64(i), string(b)); err != nil {
				t.Fatal(err)
			}
		}
	}
	v1Append(memorytest.User("task"), memorytest.Assistant("ok"))

	s, err := OpenSQLite(path, nil) // the upgrade, while the version-1 process runs on
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	turn := func(q, id string) []openai.ChatCompletionMessage {
		return append(append([]openai.ChatCompletionMessage{memorytest.User(q)}, memorytest.Step(id, 1)...), memorytest.Assistant("answer "+q))
	}
	v1Append(turn("old", "call_0")...) // a provider that numbers its calls call_0 every turn
	for _, q := range []string{"a", "b", "c"} {
		if err := s.Append(ctx, "s", turn(q, "call_"+q)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.Load(ctx, "s", agentkit.LoadOptions{RecentTurns: 1})
	if err != nil {
		t.Fatal(err)
	}
	if h.Omitted == 0 {
		t.Fatal("nothing left out")
	}
	if !h.CallIDUsed(ctx, "call_0_0") {
		t.Errorf("CallIDUsed(call_0_0) = false, but the session uses it (appended by a version-1 process after the upgrade)")
	}

	// What it leads to: the next run reuses the id.
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("call_0_0", "noop", "{}")), agentkittest.Text("done"))
	noop := tool.New("noop", "does nothing", func(context.Context, struct{}) (string, error) { return "ok", nil })
	a := agentkit.New(model, &agentkit.Options{Memory: s, SessionTurns: 2, Tools: []*tool.Tool{noop}})
	if _, err := a.RunSession(ctx, "s", "again"); err != nil {
		t.Fatal(err)
	}
	whole, err := s.Load(ctx, "s", agentkit.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := agentkit.ValidateHistory(whole.Messages); err != nil {
		t.Errorf("the stored session is no longer valid: %v", err)
	}
}

// A sub-agent with memory.Fold, run from a tool of a session loaded in part, folds its own
// whole transcript: the outer run's OmittedFromContext does not reach it, and its Fold does
// not refuse with ErrPartialTranscript.
func TestFoldInASubAgentOfAPartlyLoadedSession(t *testing.T) {
	ctx := context.Background()
	store := NewInMemory()
	var msgs []openai.ChatCompletionMessage
	msgs = append(msgs, memorytest.User("task"), memorytest.Assistant("ok"))
	for _, q := range []string{"a", "b", "c", "d"} {
		msgs = append(msgs, memorytest.User(q), memorytest.Assistant("answer "+q))
	}
	if err := store.Append(ctx, "s", msgs); err != nil {
		t.Fatal(err)
	}

	innerModel := agentkittest.New(t, agentkittest.Text("inner answer"))
	inner := agentkit.New(innerModel, &agentkit.Options{
		Context: Fold(FoldOptions{Trigger: 100_000, Summarizer: SummarizerFunc(func(context.Context, string, []openai.ChatCompletionMessage) (string, error) {
			return "summary", nil
		})}),
	})
	var innerErr error
	ask := tool.New("ask_expert", "asks a sub-agent", func(ctx context.Context, in struct{}) (string, error) {
		res, err := inner.Run(ctx, "a sub-task")
		innerErr = err
		return res.Output, err
	})
	outerModel := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("ask_expert", "{}")), agentkittest.Text("done"))
	outer := agentkit.New(outerModel, &agentkit.Options{Memory: store, SessionTurns: 2, Tools: []*tool.Tool{ask}})
	res, err := outer.RunSession(ctx, "s", "use the expert")
	if err != nil {
		t.Fatal(err)
	}
	if res.Omitted == 0 {
		t.Fatal("the outer session was loaded whole: the test needs a partial load")
	}
	if innerErr != nil {
		t.Errorf("the sub-agent's Run (a whole transcript of its own) failed: %v (ErrPartialTranscript: %v)", innerErr, errors.Is(innerErr, ErrPartialTranscript))
	}
}
