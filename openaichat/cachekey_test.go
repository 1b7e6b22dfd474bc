package openaichat_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/openaichat"
)

// With SessionCacheKey, a session run's requests carry a prompt_cache_key derived from the
// session id (not the id), one per session; a plain run's carry none; a key the Request sets
// wins; without the option nothing is sent.
func TestSessionCacheKey(t *testing.T) {
	keyOf := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "tc-" + hex.EncodeToString(sum[:])[:32]
	}
	tests := []struct {
		name    string
		opts    openaichat.Options
		session string // "" runs Run
		ctx     *openaichat.Request
		want    any // the prompt_cache_key sent; nil for none
	}{
		{"session alice", openaichat.Options{SessionCacheKey: true}, "alice", nil, keyOf("alice")},
		{"session bob", openaichat.Options{SessionCacheKey: true}, "bob", nil, keyOf("bob")},
		{"plain run", openaichat.Options{SessionCacheKey: true}, "", nil, nil},
		{"the request's key wins", openaichat.Options{SessionCacheKey: true}, "alice", &openaichat.Request{PromptCacheKey: "user-7"}, "user-7"},
		{"the client's key wins", openaichat.Options{SessionCacheKey: true, Request: openaichat.Request{PromptCacheKey: "tenant"}}, "alice", nil, "tenant"},
		{"option off", openaichat.Options{}, "alice", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, 200, "application/json", okReply)
			a := agentkit.New(openaichat.New(srv.url, &tt.opts), &agentkit.Options{Model: "m", Memory: memory.NewInMemory()})
			ctx := context.Background()
			if tt.ctx != nil {
				ctx = openaichat.WithRequest(ctx, *tt.ctx)
			}
			var err error
			if tt.session == "" {
				_, err = a.Run(ctx, "hi")
			} else {
				_, err = a.RunSession(ctx, tt.session, "hi")
			}
			if err != nil {
				t.Fatal(err)
			}
			got, ok := srv.sent(0)["prompt_cache_key"]
			if tt.want == nil && ok {
				t.Errorf("prompt_cache_key %v sent, want none", got)
			}
			if tt.want != nil && got != tt.want {
				t.Errorf("prompt_cache_key = %v, want %v", got, tt.want)
			}
		})
	}
	if got, want := openaichat.SessionCacheKey("alice"), keyOf("alice"); got != want {
		t.Errorf("SessionCacheKey(alice) = %q, want %q", got, want)
	}
}
