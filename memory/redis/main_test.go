package redis_test

import (
	"context"
	"os"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/toolcall/toolcall/memory/redis"
	"github.com/toolcall/toolcall/memory/redis/internal/redistest"
)

// TestMain runs the tests against one redis-server of this binary, or, when the binary is
// started as a child process by a test (childEnv set), that child's part.
func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(redistest.Main(m))
}

// newStore returns a Store on the shared server under a prefix of the test's own, and its
// client.
func newStore(t testing.TB, opts *redis.Options) (*redis.Store, *goredis.Client) {
	t.Helper()
	c, prefix := redistest.Client(t, nil)
	var o redis.Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = prefix
	}
	s, err := redis.New(context.Background(), c, &o)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}
