package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/postgres"
	"github.com/toolcall/toolcall/memory/postgres/internal/pgtest"
)

var equateEmpty = cmpopts.EquateEmpty()

func TestConformance(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the pools close
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return openStore(t, nil) })
}

// Two applications in one database, each in a schema of its own: neither sees the other's
// sessions, and both pass the kit.
func TestSchemas(t *testing.T) {
	url := pgtest.Database(t)
	memorytest.Run(t, func(t *testing.T) agentkit.Memory {
		return openOn(t, url, &postgres.Options{Schema: "app " + strings.ReplaceAll(t.Name(), "/", "_")})
	})
	ctx := context.Background()
	a := openOn(t, url, &postgres.Options{Schema: "a"})
	b := openOn(t, url, &postgres.Options{Schema: `b"quoted`})
	if err := a.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("only in a")}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Load(ctx, "s")
	if err != nil || len(got) != 0 {
		t.Fatalf("Load from schema b = %v, %v; want nothing", got, err)
	}
}

func TestReopen(t *testing.T) {
	url := pgtest.Database(t)
	ctx := context.Background()
	want := append([]openai.ChatCompletionMessage{memorytest.User("北京天气怎么样？")}, memorytest.Step("call_1", 2)...)
	if err := openOn(t, url, nil).Append(ctx, "s", want); err != nil {
		t.Fatal(err)
	}
	got, err := openOn(t, url, nil).Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, equateEmpty); diff != "" {
		t.Fatalf("after reopening (-want +got):\n%s", diff)
	}
}

// Rows the store never writes are reported, naming the session and the row.
func TestCorruptRows(t *testing.T) {
	tests := []struct {
		name    string
		sql     string
		wantMsg string
	}{
		{"not JSON", `INSERT INTO toolcall_messages (session, seq, role, message, search) VALUES ('s', 1, 'user', 'not json', '')`, "message 1"},
		{"no role", `INSERT INTO toolcall_messages (session, seq, role, message, search) VALUES ('s', 1, 'user', '{"content":"x"}', '')`, "no role"},
		{"gap", `INSERT INTO toolcall_messages (session, seq, role, message, search) VALUES ('s', 5, 'user', '{"role":"user"}', '')`, "message 1 is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := pgtest.Database(t)
			s := openOn(t, url, nil)
			ctx := context.Background()
			if err := s.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("q")}); err != nil {
				t.Fatal(err)
			}
			if _, err := newPool(t, url, 1).Exec(ctx, tt.sql); err != nil {
				t.Fatal(err)
			}
			_, err := s.Load(ctx, "s")
			if !errors.Is(err, postgres.ErrCorrupt) || !strings.Contains(err.Error(), tt.wantMsg) || !strings.Contains(err.Error(), `"s"`) {
				t.Fatalf("Load = %v, want ErrCorrupt naming the session and %q", err, tt.wantMsg)
			}
		})
	}
}

// The full-text search ranks a message holding every word of the query first, finds words
// inside longer Chinese text, and searches the tool names and arguments.
func TestSearchRanking(t *testing.T) {
	s := openStore(t, nil)
	ctx := context.Background()
	msgs := []openai.ChatCompletionMessage{
		memorytest.User("weather in Paris"),
		{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{{ID: "c1", Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: "lookup_price", Arguments: `{"item":"umbrella"}`}}}},
		{Role: openai.ChatMessageRoleTool, ToolCallID: "c1", Content: "12 euros"},
		memorytest.Assistant("Paris: rain. Weather in Paris tomorrow: rain again."),
		memorytest.User("上海的天气预报说明天有雨"),
	}
	if err := s.Append(ctx, "s", msgs); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  []int
	}{
		{"weather Paris", []int{3, 0}},
		{"天气预报", []int{4}},
		{"umbrella", []int{1}},
		{"lookup_price", []int{1}},
		{"EUROS", []int{2}},
		{"zebra", nil},
	}
	for _, tt := range tests {
		found, err := s.Search(ctx, "s", memory.Query{Text: tt.query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, f := range found {
			got = append(got, f.Index)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}
