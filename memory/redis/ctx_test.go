package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/redis"
	"github.com/toolcall/toolcall/memory/redis/internal/redistest"
)

// With the server stalled (CLIENT PAUSE) and a client whose ContextTimeoutEnabled is set,
// as the package doc advises, every operation ends at its context's deadline with an error
// wrapping context.DeadlineExceeded.
func TestDeadlineOfAStalledServer(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, &goredis.Options{ContextTimeoutEnabled: true, MaxRetries: -1})
	store, err := redis.New(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := srv.Client(t, nil)
	if err := admin.Do(context.Background(), "CLIENT", "PAUSE", 1500, "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		op   func(ctx context.Context) error
	}{
		{"Load", func(ctx context.Context) error { _, err := store.Load(ctx, "s"); return err }},
		{"Append", func(ctx context.Context) error {
			return store.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("q")})
		}},
		{"LoadRecent", func(ctx context.Context) error { _, _, err := store.LoadRecent(ctx, "s", 1); return err }},
		{"Claim", func(ctx context.Context) error { _, err := store.Claim(ctx, "k"); return err }},
		{"Lock", func(ctx context.Context) error {
			u, err := store.Lock(ctx, "s")
			if err == nil {
				u()
			}
			return err
		}},
		{"TakePause", func(ctx context.Context) error { _, err := store.TakePause(ctx, "s"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := tt.op(ctx)
			if took := time.Since(start); took > time.Second {
				t.Errorf("took %s past a deadline of 100ms", took)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("error = %v, want one wrapping context.DeadlineExceeded", err)
			}
		})
	}
}
