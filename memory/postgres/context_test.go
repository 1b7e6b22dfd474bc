package postgres_test

import (
	"context"
	"errors"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
)

// Every operation with a canceled context fails with an error wrapping context.Canceled, and
// writes nothing.
func TestCanceledContextEveryOperation(t *testing.T) {
	s := openStore(t, nil)
	bg := context.Background()
	if err := s.Append(bg, "s", []openai.ChatCompletionMessage{memorytest.User("q")}); err != nil {
		t.Fatal(err)
	}
	if err := s.SavePause(bg, "s", []byte(`{"version":1}`)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	cancel()
	tests := []struct {
		name string
		op   func() error
	}{
		{"Append", func() error { return s.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.Assistant("a")}) }},
		{"Load", func() error { _, err := s.Load(ctx, "s"); return err }},
		{"LoadRecent", func() error { _, _, err := s.LoadRecent(ctx, "s", 1); return err }},
		{"CallIDUsed", func() error { _, err := s.CallIDUsed(ctx, "s", "x"); return err }},
		{"Lock", func() error {
			u, err := s.Lock(ctx, "s")
			if err == nil {
				u()
			}
			return err
		}},
		{"Search", func() error { _, err := s.Search(ctx, "s", memory.Query{Text: "q"}); return err }},
		{"SaveSummary", func() error { return s.SaveSummary(ctx, "s", memory.Summary{Text: "x"}) }},
		{"LoadSummary", func() error { _, err := s.LoadSummary(ctx, "s"); return err }},
		{"Claim", func() error { _, err := s.Claim(ctx, "k"); return err }},
		{"SavePause", func() error { return s.SavePause(ctx, "s", []byte("{}")) }},
		{"LoadPause", func() error { _, err := s.LoadPause(ctx, "s"); return err }},
		{"TakePause", func() error { _, err := s.TakePause(ctx, "s"); return err }},
	}
	for _, tt := range tests {
		if err := tt.op(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled context = %v, want an error wrapping context.Canceled", tt.name, err)
		}
	}
	// Nothing was written: the message, the pause, no summary, the claim still free.
	if got, err := s.Load(bg, "s"); err != nil || len(got) != 1 {
		t.Errorf("Load = %d messages, %v; want 1", len(got), err)
	}
	if got, err := s.LoadPause(bg, "s"); err != nil || string(got) != `{"version":1}` {
		t.Errorf("LoadPause = %q, %v; want the pause saved before", got, err)
	}
	if got, err := s.LoadSummary(bg, "s"); err != nil || got != (memory.Summary{}) {
		t.Errorf("LoadSummary = %+v, %v; want none", got, err)
	}
	if won, err := s.Claim(bg, "k"); err != nil || !won {
		t.Errorf("Claim = %v, %v; want the key still free", won, err)
	}
}
