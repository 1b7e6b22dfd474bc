package agentkit

import (
	"context"
	"sync"

	openai "github.com/sashabaranov/go-openai"
)

// Usage is the token usage of model calls as the provider reported it. Cached and written
// prompt tokens are part of PromptTokens; reasoning tokens are part of CompletionTokens.
// Providers bill cached tokens at a fraction of the price (OpenAI a half or less, Anthropic a
// tenth) and written ones above it (Anthropic: 1.25x), so the split is what a run costs.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	TotalTokens      int `json:"total_tokens,omitempty"`
	// CachedTokens are the prompt tokens read from the provider's prompt cache
	// (usage.prompt_tokens_details.cached_tokens; DeepSeek's prompt_cache_hit_tokens).
	CachedTokens int `json:"cached_tokens,omitempty"`
	// CacheWriteTokens are the prompt tokens written to the provider's prompt cache, where a
	// provider reports them (OpenRouter's prompt_tokens_details.cache_write_tokens, the
	// Vercel AI gateway's cache_creation_input_tokens). go-openai's Usage has no field for
	// them: a Model reports them with [ReportUsage] (openaichat.Client does).
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens are the completion tokens spent reasoning
	// (usage.completion_tokens_details.reasoning_tokens).
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// Add adds o's counts to u's.
func (u *Usage) Add(o Usage) {
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.TotalTokens += o.TotalTokens
	u.CachedTokens += o.CachedTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// UsageOf returns the usage go-openai's Usage holds.
func UsageOf(u openai.Usage) Usage {
	out := Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if d := u.PromptTokensDetails; d != nil {
		out.CachedTokens = d.CachedTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		out.ReasoningTokens = d.ReasoningTokens
	}
	return out
}

type usageKey struct{}

// usageReport receives the usage a Model reports for one model call.
type usageReport struct {
	mu  sync.Mutex
	u   Usage
	set bool
}

// ReportUsage reports, for the model call whose context ctx is (or derives from), the usage
// as the provider reported it, in full: the agent then records u for the call instead of
// what the response's go-openai Usage holds. A Model calls it when the provider reports what
// go-openai's Usage cannot hold (cache writes); a streaming Model may call it while its
// stream is read. The last report of a call wins (a retried call reports its last attempt).
// Outside a model call made by an Agent it does nothing.
func ReportUsage(ctx context.Context, u Usage) {
	if r, ok := ctx.Value(usageKey{}).(*usageReport); ok {
		r.mu.Lock()
		r.u, r.set = u, true
		r.mu.Unlock()
	}
}

// withUsageReport returns a context for one model call, and what the model reports in it.
func withUsageReport(ctx context.Context) (context.Context, *usageReport) {
	r := &usageReport{}
	return context.WithValue(ctx, usageKey{}, r), r
}

// usage returns the call's usage: the reported one, else the response's.
func (r *usageReport) usage(resp openai.Usage) Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set {
		return r.u
	}
	return UsageOf(resp)
}

// reported returns the usage the model reported, if it did.
func (r *usageReport) reported() (Usage, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.u, r.set
}
