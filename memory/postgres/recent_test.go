package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/postgres"
	"github.com/toolcall/toolcall/memory/postgres/internal/pgtest"
)

// LoadRecent reads only the rows it returns: a row it leaves out, made unreadable, does not
// disturb it, while Load, which reads it, reports it.
func TestLoadRecentReadsOnlyWhatItReturns(t *testing.T) {
	url := pgtest.Database(t)
	s := openOn(t, url, nil)
	ctx := context.Background()
	var msgs []openai.ChatCompletionMessage
	for i := range 10 {
		msgs = append(msgs, memorytest.User("question"))
		msgs = append(msgs, memorytest.Step("call_"+string(rune('a'+i)), 1)...)
		msgs = append(msgs, memorytest.Assistant("answer"))
	}
	if err := s.Append(ctx, "s", msgs); err != nil {
		t.Fatal(err)
	}
	// Turn 4 (messages 16…19) is in the stretch a load of the latest 2 turns leaves out.
	if _, err := newPool(t, url, 1).Exec(ctx, "UPDATE toolcall_messages SET message = 'garbage' WHERE session = 's' AND seq = 17"); err != nil {
		t.Fatal(err)
	}
	got, omitted, err := s.LoadRecent(ctx, "s", 2)
	if err != nil {
		t.Fatalf("LoadRecent: %v", err)
	}
	want := append(append([]openai.ChatCompletionMessage{}, msgs[:1]...), msgs[len(msgs)-8:]...)
	if diff := cmp.Diff(want, got, equateEmpty); diff != "" || omitted != len(msgs)-9 {
		t.Errorf("LoadRecent: omitted %d, want %d; messages (-want +got):\n%s", omitted, len(msgs)-9, diff)
	}
	if _, err := s.Load(ctx, "s"); !errors.Is(err, postgres.ErrCorrupt) {
		t.Errorf("Load = %v, want ErrCorrupt", err)
	}
	// The ids of the calls left out are still known.
	for _, id := range []string{"call_e_0", "call_a_0"} {
		if used, err := s.CallIDUsed(ctx, "s", id); err != nil || !used {
			t.Errorf("CallIDUsed(%q) = %v, %v; want true", id, used, err)
		}
	}
}
