package redis

import (
	"context"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/redis/internal/redistest"
)

// A batch sent again under its id (as go-redis resends a command whose reply a broken
// connection lost) lands once, also after other batches, up to 64 of them; a new id lands.
func TestAppendOncePerBatch(t *testing.T) {
	ctx := context.Background()
	c, prefix := redistest.Client(t, nil)
	s, err := New(ctx, c, &Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	batch := func(id string) []openai.ChatCompletionMessage {
		return append([]openai.ChatCompletionMessage{memorytest.User(id)}, memorytest.Step("call_"+id, 1)...)
	}
	var want []openai.ChatCompletionMessage
	send := func(id string, lands bool) {
		t.Helper()
		if err := s.appendBatch(ctx, "s", batch(id), id); err != nil {
			t.Fatal(err)
		}
		if lands {
			want = append(want, batch(id)...)
		}
	}
	send("a", true)
	send("a", false)
	for i := range 63 {
		send("b"+strconv.Itoa(i), true)
	}
	send("a", false) // 63 batches later, still known
	send("b0", false)
	send("c", true) // a 65th: "a" falls out of the latest 64
	send("a", true)
	got, err := s.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the session (-want +got):\n%s", diff)
	}
}
