package openaichat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

// A provider that signs its tool calls (OpenRouter with Gemini 3): the signature it sent
// with the call goes back with the tool result.
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []map[string]json.RawMessage `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "application/json")
		if len(req.Messages) == 1 { // the question: call the tool, signed
			io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant",
				"reasoning_details":[{"type":"reasoning.encrypted","data":"c2lnbmVk","index":0}],
				"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"北京\"}"}}]}}]}`)
			return
		}
		fmt.Printf("sent back: %s\n", req.Messages[1]["reasoning_details"])
		io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"北京晴，25°C。"}}],
			"usage":{"prompt_tokens":90,"completion_tokens":10,"total_tokens":100,"prompt_tokens_details":{"cached_tokens":64,"cache_write_tokens":20}}}`)
	}))
	defer srv.Close()

	weather := tool.New("get_weather", "查询指定城市的当前天气。", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "晴，25°C", nil
	})
	client := openaichat.New(srv.URL+"/v1", &openaichat.Options{APIKey: "sk-..."})
	agent := agentkit.New(client, &agentkit.Options{Model: "google/gemini-3-pro-preview", Tools: []*tool.Tool{weather}})
	res, err := agent.Run(context.Background(), "北京天气怎么样？")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
	fmt.Printf("cached %d, written %d of %d prompt tokens\n", res.Usage.CachedTokens, res.Usage.CacheWriteTokens, res.Usage.PromptTokens)
	// Output:
	// sent back: [{"type":"reasoning.encrypted","data":"c2lnbmVk","index":0}]
	// 北京晴，25°C。
	// cached 64, written 20 of 90 prompt tokens
}

// Request fields go-openai has no field for, per client and per run.
func ExampleWithRequest() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			PromptCacheKey string          `json:"prompt_cache_key"`
			Provider       json.RawMessage `json:"provider"`
			Temperature    *float64        `json:"temperature"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		fmt.Printf("prompt_cache_key %q, provider %s, temperature %v\n", req.PromptCacheKey, req.Provider, *req.Temperature)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}]}`)
	}))
	defer srv.Close()

	client := openaichat.New(srv.URL+"/v1", &openaichat.Options{Request: openaichat.Request{
		Provider: &openaichat.ProviderRouting{Order: []string{"anthropic", "amazon-bedrock"}},
	}})
	agent := agentkit.New(client, &agentkit.Options{Model: "anthropic/claude-sonnet-4"})
	ctx := openaichat.WithRequest(context.Background(), openaichat.Request{PromptCacheKey: "user-42"})
	if _, err := agent.Run(ctx, "hi"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// prompt_cache_key "user-42", provider {"order":["anthropic","amazon-bedrock"]}, temperature 0
}
