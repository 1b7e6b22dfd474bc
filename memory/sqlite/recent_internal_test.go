package sqlite

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	modernc "modernc.org/sqlite"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/tool"
)

// cacheLookups returns the pages the only connection of a ":memory:" Store looked up
// since the last call (SQLITE_DBSTATUS_CACHE_HIT: in memory, every page read is a hit).
func cacheLookups(t *testing.T, s *Store) int {
	t.Helper()
	c, err := s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close() // the only connection: released before the next query
	var hits int
	if err := c.Raw(func(dc any) error {
		var err error
		hits, _, err = dc.(modernc.DBStatus).Status(modernc.DBStatusCacheHit, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return hits
}

// A partial load reads only the rows it keeps: the pages it reads do not grow with the turns
// it leaves out. (One query for "seq <= first OR seq >= from" is planned as a walk of the
// whole session: SQLite does not use seq for an OR of two ranges on a WITHOUT ROWID table,
// so load asks for the two ranges apart.)
func TestPartialLoadReadsOnlyKeptRows(t *testing.T) {
	s, err := Open(":memory:", nil)
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
		msgs, omitted, err := s.LoadRecent(ctx, session, 2)
		if err != nil {
			t.Fatal(err)
		}
		pages[session] = cacheLookups(t, s)
		if omitted == 0 || len(msgs) != 1+2*2 {
			t.Fatalf("session %s: loaded %d messages, omitted %d; want 5 and some left out", session, len(msgs), omitted)
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
// and RunSession never gives a new call one of them. (Indexing in Append alone would miss
// them, and the stored session would then hold an id twice.)
func TestRowsOfAVersion1WriterAreIndexed(t *testing.T) {
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

	s, err := Open(path, nil) // the upgrade, while the version-1 process runs on
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
	if _, omitted, err := s.LoadRecent(ctx, "s", 1); err != nil || omitted == 0 {
		t.Fatalf("LoadRecent = %d omitted, %v; want some left out", omitted, err)
	}
	if used, err := s.CallIDUsed(ctx, "s", "call_0_0"); !used || err != nil {
		t.Errorf("CallIDUsed(call_0_0) = %v, %v; want true, nil: the session uses it (appended by a version-1 process after the upgrade)", used, err)
	}

	// What it leads to: a run that loads in part, whose model reuses the id, renames it.
	model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("call_0_0", "noop", "{}")), agentkittest.Text("done"))
	noop := tool.New("noop", "does nothing", func(context.Context, struct{}) (string, error) { return "ok", nil })
	a := agentkit.New(model, &agentkit.Options{Memory: s, Context: memory.Window(memory.WindowOptions{MaxTurns: 2}), Tools: []*tool.Tool{noop}})
	res, err := a.RunSession(ctx, "s", "again")
	if err != nil {
		t.Fatal(err)
	}
	if res.Omitted == 0 {
		t.Fatal("the session was loaded whole: the test needs a partial load")
	}
	whole, err := s.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if err := agentkit.ValidateHistory(whole); err != nil {
		t.Errorf("the stored session is no longer valid: %v", err)
	}
}
