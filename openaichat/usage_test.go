package openaichat_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/openaichat"
)

// TestUsageAsReported: the usage of a reply reaches the run's Result as the provider
// reported it, cache writes included, for a plain and a streamed reply.
func TestUsageAsReported(t *testing.T) {
	tests := []struct {
		name  string
		usage string
		want  agentkit.Usage
	}{
		{
			name:  "openrouter",
			usage: `{"prompt_tokens":2649,"completion_tokens":100,"total_tokens":2749,"prompt_tokens_details":{"cached_tokens":2569,"cache_write_tokens":79},"completion_tokens_details":{"reasoning_tokens":40}}`,
			want:  agentkit.Usage{PromptTokens: 2649, CompletionTokens: 100, TotalTokens: 2749, CachedTokens: 2569, CacheWriteTokens: 79, ReasoningTokens: 40},
		},
		{
			name:  "vercel gateway",
			usage: `{"prompt_tokens":507,"completion_tokens":137,"total_tokens":644,"prompt_tokens_details":{"cached_tokens":0},"cache_creation_input_tokens":300}`,
			want:  agentkit.Usage{PromptTokens: 507, CompletionTokens: 137, TotalTokens: 644, CacheWriteTokens: 300},
		},
		{
			name:  "deepseek",
			usage: `{"prompt_tokens":875,"completion_tokens":79,"total_tokens":954,"prompt_cache_hit_tokens":512,"prompt_cache_miss_tokens":363,"completion_tokens_details":{"reasoning_tokens":26}}`,
			want:  agentkit.Usage{PromptTokens: 875, CompletionTokens: 79, TotalTokens: 954, CachedTokens: 512, ReasoningTokens: 26},
		},
		{
			name:  "openai",
			usage: `{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":8,"audio_tokens":0}}`,
			want:  agentkit.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, CachedTokens: 8},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain := newServer(t, 200, "application/json", `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":`+tt.usage+`}`)
			streamed := newServer(t, 200, "text/event-stream", hiChunk+finishChunk+`data: {"id":"s","object":"chat.completion.chunk","choices":[],"usage":`+tt.usage+"}\n\n"+done)
			for name, run := range map[string]func() (*agentkit.Result, error){
				"plain": func() (*agentkit.Result, error) {
					return agentkit.New(openaichat.New(plain.url, nil), &agentkit.Options{Model: "m"}).Run(context.Background(), "hi")
				},
				"streamed": func() (*agentkit.Result, error) {
					s := agentkit.New(openaichat.New(streamed.url, nil), &agentkit.Options{Model: "m"}).RunStream(context.Background(), "hi")
					for range s.Events() {
					}
					return s.Result()
				},
			} {
				res, err := run()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if diff := cmp.Diff(tt.want, res.Usage); diff != "" {
					t.Errorf("%s: Result.Usage (-want +got):\n%s", name, diff)
				}
				if len(res.Steps) != 1 || res.Steps[0].Usage != tt.want {
					t.Errorf("%s: Steps[0].Usage %+v, want %+v", name, res.Steps, tt.want)
				}
			}
		})
	}
}
