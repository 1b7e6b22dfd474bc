package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
)

const okBody = `{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"你好"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`

// reply is one scripted HTTP response.
type reply struct {
	status int
	header map[string]string
	body   string
}

func apiError(status int) reply {
	return reply{status: status, body: fmt.Sprintf(`{"error":{"message":"status %d","type":"test_error"}}`, status)}
}

// server is an httptest server that plays replies in order and counts requests; past the
// script it answers 200.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	n       int
}

func newServer(t *testing.T, replies ...reply) *server {
	s := &server{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("unexpected request %s %s", r.URL.Path, r.Header.Get("Authorization"))
		}
		s.mu.Lock()
		rep := reply{status: 200, body: okBody}
		if s.n < len(s.replies) {
			rep = s.replies[s.n]
		}
		s.n++
		s.mu.Unlock()
		for k, v := range rep.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		fmt.Fprint(w, rep.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// client returns a real go-openai client for url, through middleware.Transport when capture is set.
func client(t *testing.T, url string, capture bool) *openai.Client {
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	var rt http.RoundTripper = base
	if capture {
		rt = middleware.Transport(base, nil)
	}
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = url + "/v1"
	cfg.HTTPClient = &http.Client{Transport: rt}
	return openai.NewClientWithConfig(cfg)
}

var chatReq = openai.ChatCompletionRequest{
	Model:    "gpt-4o-mini",
	Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "你好"}},
}

// TestModelRetryHonorsRetryAfter: 500, then 429 with Retry-After: 1, then success, against
// the real go-openai client. The second wait is the server's second, not the 100ms backoff.
func TestModelRetryHonorsRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		name      string
		capture   bool
		wantWaits []time.Duration
	}{
		{"with Transport", true, []time.Duration{50 * time.Millisecond, time.Second}},
		{"without it: backoff only", false, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, apiError(500), reply{status: 429, header: map[string]string{"Retry-After": "1"}, body: `{"error":{"message":"rate limited","type":"requests"}}`})
			var s sleeps
			var retried []string
			m := agentkit.WrapModel(client(t, srv.URL, tt.capture), middleware.ModelRetry(&middleware.ModelRetryOptions{
				BaseDelay: 100 * time.Millisecond,
				Rand:      func() float64 { return 0 },
				Sleep:     s.sleep,
				OnRetry: func(_ context.Context, n int, err error, d time.Duration) {
					retried = append(retried, fmt.Sprintf("%d %d %s", n, statusOf(err), d))
				},
			}))
			resp, err := m.CreateChatCompletion(context.Background(), chatReq)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Choices[0].Message.Content != "你好" || srv.requests() != 3 {
				t.Errorf("got %q after %d requests, want 你好 after 3", resp.Choices[0].Message.Content, srv.requests())
			}
			if diff := cmp.Diff(tt.wantWaits, s.got()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			want := []string{fmt.Sprintf("1 500 %s", tt.wantWaits[0]), fmt.Sprintf("2 429 %s", tt.wantWaits[1])}
			if diff := cmp.Diff(want, retried); diff != "" {
				t.Errorf("OnRetry (-want +got):\n%s", diff)
			}
		})
	}
}

func statusOf(err error) int {
	var api *openai.APIError
	if errors.As(err, &api) {
		return api.HTTPStatusCode
	}
	return 0
}

// TestModelRetryStatus: which statuses are retried, with exactly how many requests.
func TestModelRetryStatus(t *testing.T) {
	tests := []struct {
		name         string
		reply        reply
		wantRequests int
	}{
		{"400 bad request", apiError(400), 1},
		{"401 unauthorized", apiError(401), 1},
		{"403 forbidden", apiError(403), 1},
		{"404 not found", apiError(404), 1},
		{"422", apiError(422), 1},
		{"408", apiError(408), 3},
		{"429", apiError(429), 3},
		{"500", apiError(500), 3},
		{"502 from a proxy, not JSON (RequestError)", reply{status: 502, body: "<html>bad gateway</html>"}, 3},
		{"503", apiError(503), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, tt.reply, tt.reply, tt.reply, tt.reply)
			var s sleeps
			m := wrap(middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: s.sleep}), client(t, srv.URL, true))
			_, err := m.CreateChatCompletion(context.Background(), chatReq)
			if err == nil {
				t.Fatal("no error")
			}
			if got := srv.requests(); got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
			if got := len(s.got()); got != tt.wantRequests-1 {
				t.Errorf("%d waits, want %d", got, tt.wantRequests-1)
			}
			var api *openai.APIError
			var re *openai.RequestError
			if !errors.As(err, &api) && !errors.As(err, &re) {
				t.Errorf("error %v hides the go-openai error", err)
			}
			if again := tt.wantRequests > 1; again != strings.Contains(err.Error(), "after 3 attempts") {
				t.Errorf("error %q: mentions attempts = %v", err, !again)
			}
		})
	}
}

// TestModelRetry401 is the case on its own: returned at once, one request, no wait.
func TestModelRetry401(t *testing.T) {
	srv := newServer(t, apiError(401), reply{status: 200, body: okBody})
	var s sleeps
	m := wrap(middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: s.sleep}), client(t, srv.URL, true))
	_, err := m.CreateChatCompletion(context.Background(), chatReq)
	if statusOf(err) != 401 || srv.requests() != 1 || len(s.got()) != 0 {
		t.Errorf("err %v after %d requests and %d waits, want the 401 after 1 and none", err, srv.requests(), len(s.got()))
	}
}

func TestModelRetryNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // connection refused from now on
	var s sleeps
	m := wrap(middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: s.sleep, MaxAttempts: 4}), client(t, url, true))
	_, err := m.CreateChatCompletion(context.Background(), chatReq)
	if err == nil || len(s.got()) != 3 || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("err %v after %d waits, want 4 attempts", err, len(s.got()))
	}
}

func TestModelRetryAfterTooLong(t *testing.T) {
	srv := newServer(t, reply{status: 429, header: map[string]string{"Retry-After": "3600"}, body: `{"error":{"message":"quota"}}`})
	var s sleeps
	m := wrap(middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: s.sleep}), client(t, srv.URL, true))
	_, err := m.CreateChatCompletion(context.Background(), chatReq)
	if statusOf(err) != 429 || srv.requests() != 1 || len(s.got()) != 0 || !strings.Contains(err.Error(), "asked to wait 1h0m0s") {
		t.Errorf("err %v after %d requests and %d waits", err, srv.requests(), len(s.got()))
	}
}

func TestModelRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"decimal seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"HTTP date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 50 * time.Millisecond},
		{"retry-after-ms first", map[string]string{"Retry-After": "9", "Retry-After-Ms": "2500"}, 2500 * time.Millisecond},
		{"garbage ignored", map[string]string{"Retry-After": "soon"}, 50 * time.Millisecond},
		{"shorter than the backoff", map[string]string{"Retry-After": "0"}, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, reply{status: 503, header: tt.header, body: `{"error":{"message":"busy"}}`})
			var s sleeps
			m := agentkit.WrapModel(client(t, srv.URL, true), middleware.ModelRetry(&middleware.ModelRetryOptions{
				BaseDelay: 100 * time.Millisecond, Rand: func() float64 { return 0 }, Sleep: s.sleep, Now: func() time.Time { return now },
			}))
			if _, err := m.CreateChatCompletion(context.Background(), chatReq); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]time.Duration{tt.want}, s.got()); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelRetryContext(t *testing.T) {
	t.Run("canceled during the wait", func(t *testing.T) {
		srv := newServer(t, apiError(500))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		m := agentkit.WrapModel(client(t, srv.URL, true), middleware.ModelRetry(&middleware.ModelRetryOptions{
			BaseDelay: time.Hour, MaxDelay: time.Hour,
			OnRetry: func(context.Context, int, error, time.Duration) { cancel() }, // the real Sleep must return at once
		}))
		start := time.Now()
		_, err := m.CreateChatCompletion(ctx, chatReq)
		if time.Since(start) > 5*time.Second || !errors.Is(err, context.Canceled) || statusOf(err) != 500 || srv.requests() != 1 {
			t.Errorf("err %v after %s and %d requests", err, time.Since(start), srv.requests())
		}
	})
	t.Run("already canceled: no retry", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n := 0
		m := wrap(middleware.ModelRetry(nil), agentkit.ModelFunc(func(ctx context.Context, _ openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			n++
			return openai.ChatCompletionResponse{}, &openai.APIError{HTTPStatusCode: 500}
		}))
		if _, err := m.CreateChatCompletion(ctx, chatReq); err == nil || n != 1 {
			t.Errorf("err %v after %d calls", err, n)
		}
	})
}

type waitErr struct{ d time.Duration }

func (e waitErr) Error() string             { return "overloaded" }
func (e waitErr) RetryAfter() time.Duration { return e.d }

// TestModelRetryAfterError: a Model of our own can say how long to wait through an error.
func TestModelRetryAfterError(t *testing.T) {
	n := 0
	var s sleeps
	m := agentkit.WrapModel(agentkit.ModelFunc(func(context.Context, openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		n++
		if n == 1 {
			return openai.ChatCompletionResponse{}, waitErr{3 * time.Second}
		}
		return openai.ChatCompletionResponse{ID: "ok"}, nil
	}), middleware.ModelRetry(&middleware.ModelRetryOptions{
		Sleep: s.sleep, Rand: func() float64 { return 0 }, Retryable: func(error) bool { return true },
	}))
	resp, err := m.CreateChatCompletion(context.Background(), chatReq)
	if err != nil || resp.ID != "ok" {
		t.Fatal(resp.ID, err)
	}
	if diff := cmp.Diff([]time.Duration{3 * time.Second}, s.got()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestModelRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&openai.APIError{HTTPStatusCode: 429}, true},
		{&openai.APIError{HTTPStatusCode: 529}, true},
		{&openai.APIError{HTTPStatusCode: 400}, false},
		{&openai.APIError{Message: "stream error, no status"}, false},
		{&openai.RequestError{HTTPStatusCode: 504}, true},
		{&openai.RequestError{HTTPStatusCode: 404}, false},
		{&openai.RequestError{HTTPStatusCode: 500, Err: &openai.APIError{}}, true}, // inner APIError without status
		{fmt.Errorf("read body: %w", errors.New("unexpected EOF")), false},
		{fmt.Errorf("decode: %w", errUnexpectedEOF()), true},
		{context.Canceled, false},
		{fmt.Errorf("attempt: %w", context.DeadlineExceeded), true},
		{openai.ErrChatCompletionInvalidModel, false},
		{errors.New("anything else"), false},
	}
	for _, tt := range tests {
		if got := middleware.ModelRetryable(tt.err); got != tt.want {
			t.Errorf("ModelRetryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
