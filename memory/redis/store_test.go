package redis_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/redis"
	"github.com/toolcall/toolcall/memory/redis/internal/redistest"
)

// The conformance kit, whole: every optional interface of a store is implemented, so none
// of its subtests skips.
func TestConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory {
		s, _ := newStore(t, nil)
		return s
	})
}

// New writes the layout version under an empty prefix, reads its own, and refuses a newer
// one or a key that is not a version, changing nothing.
func TestLayoutVersion(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		stored  string // "" for none
		wantErr bool
		want    string // the version key after New
	}{
		{"new prefix", "", false, "1"},
		{"this version", "1", false, "1"},
		{"newer version", "2", true, "2"},
		{"not a version", "hello", true, "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, prefix := redistest.Client(t, nil)
			c.Set(ctx, prefix+"foreign", "someone else's", 0)
			if tt.stored != "" {
				c.Set(ctx, prefix+"version", tt.stored, 0)
			}
			_, err := redis.New(ctx, c, &redis.Options{Prefix: prefix})
			if got := err != nil; got != tt.wantErr {
				t.Fatalf("New = %v, want an error: %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, redis.ErrLayoutVersion) {
				t.Errorf("New = %v, want an error wrapping ErrLayoutVersion", err)
			}
			if tt.stored == "2" && !strings.Contains(fmtErr(err), "version 2") {
				t.Errorf("error %q does not name the version found", err)
			}
			if got, _ := c.Get(ctx, prefix+"version").Result(); got != tt.want {
				t.Errorf("version key = %q, want %q", got, tt.want)
			}
			if got, _ := c.Get(ctx, prefix+"foreign").Result(); got != "someone else's" {
				t.Errorf("a key New did not write changed: %q", got)
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Stores on two prefixes of one Redis do not see each other's sessions; the default prefix
// is "toolcall:".
func TestPrefixes(t *testing.T) {
	ctx := context.Background()
	c, prefix := redistest.Client(t, nil)
	a, err := redis.New(ctx, c, &redis.Options{Prefix: prefix + "a:"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := redis.New(ctx, c, &redis.Options{Prefix: prefix + "b:"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Append(ctx, "s", []openai.ChatCompletionMessage{memorytest.User("in a")}); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Load(ctx, "s"); err != nil || len(got) != 0 {
		t.Errorf("the other prefix's session = %d messages, %v; want none", len(got), err)
	}
	keys, err := c.Keys(ctx, prefix+"a:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix+"a:") {
			t.Errorf("key %q outside the prefix", k)
		}
	}
	if _, err := redis.New(ctx, c, nil); err != nil {
		t.Fatal(err)
	}
	defer c.Del(ctx, "toolcall:version")
	if v, err := c.Get(ctx, "toolcall:version").Result(); err != nil || v != "1" {
		t.Errorf("the default prefix's version key = %q, %v; want 1", v, err)
	}
}

// A stored message that is not a message is an error wrapping ErrCorrupt that names the
// session and the position, from Load and LoadRecent alike.
func TestCorrupt(t *testing.T) {
	ctx := context.Background()
	c, prefix := redistest.Client(t, nil)
	s, err := redis.New(ctx, c, &redis.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []openai.ChatCompletionMessage{memorytest.User("q")}
	msgs = append(msgs, memorytest.Step("call_a", 1)...)
	for i := range 4 {
		msgs = append(msgs, memorytest.User("more"), memorytest.Assistant(strings.Repeat("a", i)))
	}
	if err := s.Append(ctx, "s", msgs); err != nil {
		t.Fatal(err)
	}
	key := prefix + "{s:s}:msgs" // the documented layout
	if n, err := c.LLen(ctx, key).Result(); err != nil || n != int64(len(msgs)) {
		t.Fatalf("LLEN %s = %d, %v; want %d", key, n, err, len(msgs))
	}
	tests := []struct {
		name, stored, want string
	}{
		{"not JSON", "{not json", "message 9"},
		{"no role", `{"content":"x"}`, "message 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.LSet(ctx, key, 9, tt.stored)
			_, err := s.Load(ctx, "s")
			if !errors.Is(err, redis.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `"s"`) {
				t.Errorf("Load = %v, want ErrCorrupt naming session \"s\" and %s", err, tt.want)
			}
			_, _, err = s.LoadRecent(ctx, "s", 1)
			if !errors.Is(err, redis.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadRecent = %v, want ErrCorrupt naming %s", err, tt.want)
			}
		})
	}
}
