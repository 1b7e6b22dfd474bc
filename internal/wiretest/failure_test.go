package wiretest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// checkFailedRun checks what every failed run must leave: the model error as the stop
// reason, a transcript the provider would accept, and no tool run unless wantCalls says so.
func checkFailedRun(t *testing.T, res *agentkit.Result, err error, w *weather, wantCalls []string) {
	t.Helper()
	if res == nil {
		t.Fatalf("Run returned a nil Result (err %v)", err)
	}
	if err == nil {
		t.Fatalf("Run succeeded with %q; want an error", res.Output)
	}
	if res.Stop != agentkit.StopModelError {
		t.Errorf("Stop = %q, want %q (err %v)", res.Stop, agentkit.StopModelError, err)
	}
	if verr := agentkit.ValidateHistory(res.Messages); verr != nil {
		t.Errorf("transcript: %v", verr)
	}
	if got := w.calls(); strings.Join(got, ",") != strings.Join(wantCalls, ",") {
		t.Errorf("tool calls = %v, want %v", got, wantCalls)
	}
}

// A 429 reaches the caller, through the agent, as the *openai.APIError go-openai builds from
// the body. The server's Retry-After is on the wire, but go-openai's error does not carry
// headers: only middleware.Transport can see it (next test).
func TestRateLimitWithoutRetry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "ratelimit.json", nil)
	w := &weather{}
	agent := agentkit.New(e.client, &agentkit.Options{Model: "gpt-4o-mini", Instructions: instructions, Tools: []*tool.Tool{w.tool()}})
	res, err := agent.Run(testContext(t), "限流了吗？")
	checkFailedRun(t, res, err, w, nil)
	var api *openai.APIError
	if !errors.As(err, &api) || api.HTTPStatusCode != http.StatusTooManyRequests || api.Code != "rate_limit_exceeded" {
		t.Fatalf("err = %v (%T); want an *openai.APIError with status 429 and code rate_limit_exceeded", err, err)
	}
	if len(res.Messages) != 2 || res.Iterations != 1 {
		t.Errorf("transcript %d messages after %d iterations; want the system prompt and the input after 1", len(res.Messages), res.Iterations)
	}
	exs := e.capture.Exchanges()
	if len(exs) != 1 || exs[0].Status != 429 || exs[0].Header.Get("Retry-After") != "2" {
		t.Fatalf("exchanges = %+v; want one 429 with Retry-After: 2", exs)
	}
}

// With middleware.ModelRetry and middleware.Transport, the 429 is retried after
// exactly the server's Retry-After (2s, longer than the configured backoff), and the run
// succeeds on the second attempt with the same request.
func TestRateLimitRetriedAfterRetryAfter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "ratelimit.json", func(rt http.RoundTripper) http.RoundTripper { return middleware.Transport(rt, nil) })
	var mu sync.Mutex
	var waits []time.Duration
	var retried []error
	retry := middleware.ModelRetry(&middleware.ModelRetryOptions{
		BaseDelay: time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error { // record, do not sleep
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return ctx.Err()
		},
		OnRetry: func(_ context.Context, _ int, err error, _ time.Duration) {
			mu.Lock()
			retried = append(retried, err)
			mu.Unlock()
		},
	})
	w := &weather{}
	agent := agentkit.New(e.client, &agentkit.Options{
		Model:           "gpt-4o-mini",
		Tools:           []*tool.Tool{w.tool()},
		ModelMiddleware: []agentkit.ModelMiddleware{retry},
	})
	res, err := agent.Run(testContext(t), "限流了吗？")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Stop != agentkit.StopAnswered || res.Output != "第二次请求成功。" {
		t.Errorf("Stop = %q, Output = %q", res.Stop, res.Output)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []time.Duration{2 * time.Second}; !cmp.Equal(waits, want) {
		t.Errorf("waits = %v, want %v (the server's Retry-After)", waits, want)
	}
	var api *openai.APIError
	if len(retried) != 1 || !errors.As(retried[0], &api) || api.HTTPStatusCode != 429 {
		t.Errorf("OnRetry saw %v; want one *openai.APIError 429", retried)
	}
	exs := e.capture.Exchanges()
	if got, want := statuses(exs), []int{429, 200}; !cmp.Equal(got, want) {
		t.Fatalf("statuses = %v, want %v", got, want)
	}
	if string(exs[0].Body) != string(exs[1].Body) {
		t.Errorf("the retry sent a different body:\n%s\n%s", exs[0].Body, exs[1].Body)
	}
}

// A 500 on the follow-up request, after a tool ran: the agent returns the error with
// errors.As-able status, the model-error stop reason, and the transcript so far (the call and
// its result), valid to send again.
func TestServerError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "servererror.json", nil)
	w := &weather{}
	agent := agentkit.New(e.client, &agentkit.Options{Model: "gpt-4o-mini", Instructions: instructions, Tools: []*tool.Tool{w.tool()}})
	res, err := agent.Run(testContext(t), "服务器错误：北京天气")
	checkFailedRun(t, res, err, w, []string{"北京"})
	if status := httpStatus(err); status != http.StatusInternalServerError {
		t.Errorf("err = %v (%T); want *openai.APIError or *openai.RequestError with status 500", err, err)
	}
	if res.Iterations != 2 || len(res.Steps) != 1 {
		t.Errorf("%d iterations, %d steps; want 2 and 1", res.Iterations, len(res.Steps))
	}
	roles := make([]string, len(res.Messages))
	for i, m := range res.Messages {
		roles[i] = m.Role
	}
	if want := []string{"system", "user", "assistant", "tool"}; !cmp.Equal(roles, want) {
		t.Errorf("transcript roles = %v, want %v", roles, want)
	}
	if got, want := statuses(e.capture.Exchanges()), []int{200, 500}; !cmp.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
}

// With ModelRetry, a 500 that persists is retried MaxAttempts times, then reported with the
// number of attempts; errors.As still finds the status.
func TestServerErrorRetriedThenReported(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "servererror.json", nil)
	var waits atomic.Int32
	retry := middleware.ModelRetry(&middleware.ModelRetryOptions{
		MaxAttempts: 3,
		Sleep:       func(ctx context.Context, _ time.Duration) error { waits.Add(1); return ctx.Err() },
	})
	w := &weather{}
	agent := agentkit.New(e.client, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}, ModelMiddleware: []agentkit.ModelMiddleware{retry}})
	res, err := agent.Run(testContext(t), "服务器错误：北京天气")
	checkFailedRun(t, res, err, w, []string{"北京"})
	if status := httpStatus(err); status != 500 || !strings.Contains(err.Error(), "3 attempts") {
		t.Errorf("err = %v; want status 500 after 3 attempts", err)
	}
	if n := waits.Load(); n != 2 {
		t.Errorf("%d waits, want 2", n)
	}
	if got, want := statuses(e.capture.Exchanges()), []int{200, 500, 500, 500}; !cmp.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
}

func httpStatus(err error) int {
	var api *openai.APIError
	if errors.As(err, &api) {
		return api.HTTPStatusCode
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode
	}
	return 0
}

// The server closes the connection without answering: the run ends with the transport's
// error and no tool runs.
func TestDisconnectBeforeResponse(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "disconnect.json", nil)
	w := &weather{}
	agent := agentkit.New(e.client, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
	res, err := agent.Run(testContext(t), "连接断开：北京天气")
	checkFailedRun(t, res, err, w, nil)
	var ue *url.Error // what *http.Client returns when the round trip fails
	if !errors.As(err, &ue) {
		t.Errorf("err = %v (%T); want the *url.Error of the failed round trip", err, err)
	}
	t.Logf("Run: %v", err)
	exs := e.capture.Exchanges()
	if len(exs) != 1 || exs[0].Err == nil {
		t.Errorf("exchanges = %+v; want one that failed", exs)
	}
}

// A 200 whose body is not JSON: a clear error, not a panic and not a success.
func TestMalformedBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "malformed.json", nil)
	w := &weather{}
	t.Run("agent", func(t *testing.T) {
		agent := agentkit.New(e.client, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
		res, err := agent.Run(testContext(t), "坏的响应：北京天气")
		checkFailedRun(t, res, err, w, nil)
		var syn *json.SyntaxError
		if !errors.As(err, &syn) {
			t.Errorf("err = %v (%T); want a *json.SyntaxError", err, err)
		}
	})
	// go-openai skips lines of a stream that are not "data:" lines, so the body is read as a
	// stream with no event at all: Recv must report it as an error, never as io.EOF.
	t.Run("stream", func(t *testing.T) {
		got := stream(testContext(t), t, agentkit.OpenAIStreaming(e.client),
			streamRequest(w.tool(), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "坏的响应：北京天气"}))
		if got.err == nil || errors.Is(got.err, io.EOF) {
			t.Fatalf("Recv error = %v after %d chunks; want an error other than io.EOF", got.err, got.chunks)
		}
		t.Logf("Recv: %v", got.err)
	})
}
