package wiretest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
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
	"github.com/toolcall/toolcall/openaichat"
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

// A 429 reaches the caller, through the agent, as an *openai.APIError: go-openai's, built
// from the body, or the one an *openaichat.Error unwraps to. The server's Retry-After is on
// the wire; go-openai's error does not carry headers (only middleware.Transport can see it,
// next test), openaichat's error carries it and says what it asks (RetryAfter).
func TestRateLimitWithoutRetry(t *testing.T) {
	t.Parallel()
	eachClient(t, "ratelimit.json", clientOptions{}, testRateLimitWithoutRetry)
}

func testRateLimitWithoutRetry(t *testing.T, e *env) {
	w := &weather{}
	agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Instructions: instructions, Tools: []*tool.Tool{w.tool()}})
	res, err := agent.Run(testContext(t), "限流了吗？")
	checkFailedRun(t, res, err, w, nil)
	checkAPIError(t, e, err, bothClients(providerError{Status: 429, Code: "rate_limit_exceeded", Message: "Rate limit reached for requests"}))
	var ra middleware.RetryAfterError
	gotWait := time.Duration(-1) // not a RetryAfterError
	if errors.As(err, &ra) {
		gotWait = ra.RetryAfter()
	}
	wantWait := map[client]time.Duration{goOpenAI: -1, openAIChat: 2 * time.Second}[e.client]
	if gotWait != wantWait {
		t.Errorf("RetryAfter() = %v, want %v (-1: err is no middleware.RetryAfterError)", gotWait, wantWait)
	}
	if len(res.Messages) != 2 || res.Iterations != 1 {
		t.Errorf("transcript %d messages after %d iterations; want the system prompt and the input after 1", len(res.Messages), res.Iterations)
	}
	exs := e.capture.Exchanges()
	if len(exs) != 1 || exs[0].Status != 429 || exs[0].Header.Get("Retry-After") != "2" {
		t.Fatalf("exchanges = %+v; want one 429 with Retry-After: 2", exs)
	}
}

// providerError is a provider's error as a client reports it.
type providerError struct {
	Status  int
	Code    any
	Message string
}

// checkAPIError checks that err is the provider's error as each client reports it: an
// *openai.APIError (go-openai's own, or the one an *openaichat.Error unwraps to) and, from
// openaichat, the *openaichat.Error itself with the same fields and the response's header
// and body. want holds each client's view of the same error (the two decode a code
// differently).
func checkAPIError(t *testing.T, e *env, err error, want map[client]providerError) {
	t.Helper()
	var api *openai.APIError
	if !errors.As(err, &api) {
		t.Fatalf("err = %v (%T); want an *openai.APIError", err, err)
	}
	if got := (providerError{api.HTTPStatusCode, api.Code, api.Message}); !cmp.Equal(got, want[e.client]) {
		t.Errorf("*openai.APIError (-want +got):\n%s", cmp.Diff(want[e.client], got))
	}
	var oe *openaichat.Error
	switch isOpenAIChat := errors.As(err, &oe); {
	case e.client == openAIChat && !isOpenAIChat:
		t.Errorf("err = %v (%T); want an *openaichat.Error", err, err)
	case e.client == goOpenAI && isOpenAIChat:
		t.Errorf("go-openai's err = %v holds an *openaichat.Error", err)
	case isOpenAIChat:
		if got := (providerError{oe.StatusCode, oe.Code, oe.Message}); !cmp.Equal(got, want[e.client]) {
			t.Errorf("*openaichat.Error (-want +got):\n%s", cmp.Diff(want[e.client], got))
		}
		if oe.Header == nil || len(oe.Body) == 0 {
			t.Errorf("*openaichat.Error without the response's header (%v) or body (%q)", oe.Header, oe.Body)
		}
	}
}

// bothClients is want as both clients report it.
func bothClients(want providerError) map[client]providerError {
	return map[client]providerError{goOpenAI: want, openAIChat: want}
}

// serverError is servererror.json's 500. aimock sends it with "code": null, which go-openai
// decodes as the int 0 and openaichat keeps as no code (nil).
var serverError = map[client]providerError{
	goOpenAI:   {Status: 500, Code: 0, Message: "The server had an error while processing your request."},
	openAIChat: {Status: 500, Code: nil, Message: "The server had an error while processing your request."},
}

// With middleware.ModelRetry, the 429 is retried after exactly the server's Retry-After (2s,
// longer than the configured backoff), and the run succeeds on the second attempt with the
// same request, plain (Run) and streamed (RunStream: the 429 refuses the stream before any
// chunk). go-openai needs middleware.Transport for the header to reach ModelRetry;
// openaichat gives it on its own (its error is a middleware.RetryAfterError), without the
// transport.
func TestRateLimitRetriedAfterRetryAfter(t *testing.T) {
	t.Parallel()
	s := newServer(t, "ratelimit.json")
	o := clientOptions{transport: withTransport(nil)}
	for _, c := range clients {
		t.Run(string(c), func(t *testing.T) {
			t.Parallel()
			for _, streamed := range []bool{false, true} {
				t.Run(map[bool]string{false: "Run", true: "RunStream"}[streamed], func(t *testing.T) {
					testRateLimitRetriedAfterRetryAfter(t, s.newEnv(t, c, o), streamed) // an env each: aimock's sequence starts anew
				})
			}
		})
	}
}

func testRateLimitRetriedAfterRetryAfter(t *testing.T, e *env, streamed bool) {
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
	agent := agentkit.New(e.model, &agentkit.Options{
		Model:           "gpt-4o-mini",
		Tools:           []*tool.Tool{w.tool()},
		ModelMiddleware: []agentkit.ModelMiddleware{retry},
	})
	var res *agentkit.Result
	var err error
	if streamed {
		res, err = agent.RunStream(testContext(t), "限流了吗？").Result()
	} else {
		res, err = agent.Run(testContext(t), "限流了吗？")
	}
	if err != nil {
		t.Fatalf("run: %v", err)
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
	eachClient(t, "servererror.json", clientOptions{}, testServerError)
}

func testServerError(t *testing.T, e *env) {
	w := &weather{}
	agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Instructions: instructions, Tools: []*tool.Tool{w.tool()}})
	res, err := agent.Run(testContext(t), "服务器错误：北京天气")
	checkFailedRun(t, res, err, w, []string{"北京"})
	checkAPIError(t, e, err, serverError)
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
	eachClient(t, "servererror.json", clientOptions{}, testServerErrorRetriedThenReported)
}

func testServerErrorRetriedThenReported(t *testing.T, e *env) {
	var waits atomic.Int32
	retry := middleware.ModelRetry(&middleware.ModelRetryOptions{
		MaxAttempts: 3,
		Sleep:       func(ctx context.Context, _ time.Duration) error { waits.Add(1); return ctx.Err() },
	})
	w := &weather{}
	agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}, ModelMiddleware: []agentkit.ModelMiddleware{retry}})
	res, err := agent.Run(testContext(t), "服务器错误：北京天气")
	checkFailedRun(t, res, err, w, []string{"北京"})
	checkAPIError(t, e, err, serverError)
	if !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("err = %v; want it to say: after 3 attempts", err)
	}
	if n := waits.Load(); n != 2 {
		t.Errorf("%d waits, want 2", n)
	}
	if got, want := statuses(e.capture.Exchanges()), []int{200, 500, 500, 500}; !cmp.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
}

// The server closes the connection without answering: the run ends with the transport's
// error and no tool runs.
func TestDisconnectBeforeResponse(t *testing.T) {
	t.Parallel()
	eachClient(t, "disconnect.json", clientOptions{}, testDisconnectBeforeResponse)
}

func testDisconnectBeforeResponse(t *testing.T, e *env) {
	w := &weather{}
	agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
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
	eachClient(t, "malformed.json", clientOptions{}, testMalformedBody)
}

func testMalformedBody(t *testing.T, e *env) {
	w := &weather{}
	t.Run("agent", func(t *testing.T) {
		agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
		res, err := agent.Run(testContext(t), "坏的响应：北京天气")
		checkFailedRun(t, res, err, w, nil)
		var syn *json.SyntaxError
		if !errors.As(err, &syn) {
			t.Errorf("err = %v (%T); want a *json.SyntaxError", err, err)
		}
	})
	// go-openai skips lines of a stream that are not "data:" lines, so the body is read as a
	// stream with no event at all: Recv must report it as an error, never as io.EOF.
	// openaichat reads the Content-Type: a JSON body is no stream, and the request fails
	// before any chunk, with the body's syntax error.
	t.Run("stream", func(t *testing.T) {
		got := stream(testContext(t), e.streaming,
			streamRequest(w.tool(), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "坏的响应：北京天气"}))
		switch e.client {
		case goOpenAI:
			if got.openErr != nil || got.err == nil || errors.Is(got.err, io.EOF) {
				t.Fatalf("CreateChatCompletionStream error = %v, Recv error = %v after %d chunks; want a stream, then an error other than io.EOF", got.openErr, got.err, got.chunks)
			}
			t.Logf("Recv: %v", got.err)
		case openAIChat:
			var syn *json.SyntaxError
			if !errors.As(got.openErr, &syn) {
				t.Fatalf("CreateChatCompletionStream error = %v (%T); want a *json.SyntaxError", got.openErr, got.openErr)
			}
			t.Logf("CreateChatCompletionStream: %v", got.openErr)
		}
	})
}
