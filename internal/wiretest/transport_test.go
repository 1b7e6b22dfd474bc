package wiretest

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

// The behaviours go-openai gets only from middleware.Transport under its HTTP client, and
// openaichat gives on its own: a 200 body that is an error object, and a bounded response
// body. (Retry-After reaching ModelRetry is TestRateLimitRetriedAfterRetryAfter.) go-openai
// runs with the transport, openaichat without.

// withTransport is the clientOptions.transport that puts middleware.Transport, with opts,
// around go-openai's recording transport.
func withTransport(opts *middleware.TransportOptions) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper { return middleware.Transport(rt, opts) }
}

// A 200 whose body is an error object, as a gateway answers when its upstream failed, is the
// provider's error, for a plain request (through the agent) and a streamed one (before any
// chunk): the status its numeric code names and its message, never a reply without choices.
func TestErrorObjectIn200(t *testing.T) {
	t.Parallel()
	eachClient(t, "errorobject.json", clientOptions{transport: withTransport(nil)}, testErrorObjectIn200)
}

func testErrorObjectIn200(t *testing.T, e *env) {
	const message = "Upstream error from Anthropic: Overloaded"
	// The code is the number 503: an int, in go-openai's APIError and in openaichat's Error
	// and the *openai.APIError it unwraps to (TestAPIErrorCodeAsGoOpenAI).
	want := map[client]providerError{
		goOpenAI:   {Status: 503, Code: 503, Message: message},
		openAIChat: {Status: 503, Code: 503, Message: message},
	}
	w := &weather{}
	t.Run("agent", func(t *testing.T) {
		agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
		res, err := agent.Run(testContext(t), "上游失败：北京天气")
		checkFailedRun(t, res, err, w, nil)
		checkAPIError(t, e, err, want)
	})
	t.Run("stream", func(t *testing.T) {
		got := stream(testContext(t), e.streaming,
			streamRequest(w.tool(), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: "上游失败：北京天气"}))
		if got.openErr == nil {
			t.Fatalf("the stream opened (%d chunks, Recv error %v); want the error before any chunk", got.chunks, got.err)
		}
		checkAPIError(t, e, got.openErr, want)
	})
	// What the server sent, below middleware.Transport: 200s.
	if got, want := statuses(e.capture.Exchanges()), []int{200, 200}; !cmp.Equal(got, want) {
		t.Errorf("statuses on the wire = %v, want %v", got, want)
	}
}

// A response body past the bound (middleware.TransportOptions.MaxBodyBytes under go-openai,
// openaichat.Options.MaxResponseBytes) fails the call with an error saying so, plain and
// streamed; under the bound the same reply arrives whole.
func TestResponseBodyBound(t *testing.T) {
	t.Parallel()
	s := newServer(t, "large.json")
	tests := []struct {
		name string
		max  int64
		// wantErr is the start of the bound's error per client; empty: the reply arrives.
		wantErr map[client]string
	}{
		{name: "under the bound", max: 1 << 20},
		{name: "over the bound", max: 1024, wantErr: map[client]string{
			goOpenAI:   "middleware: the response body is larger than 1024 bytes",
			openAIChat: "openaichat: the response body is larger than 1024 bytes",
		}},
	}
	for _, c := range clients {
		t.Run(string(c), func(t *testing.T) {
			t.Parallel()
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					e := s.newEnv(t, c, clientOptions{
						transport:  withTransport(&middleware.TransportOptions{MaxBodyBytes: tt.max}),
						openaichat: openaichat.Options{MaxResponseBytes: tt.max},
					})
					checkBodyBound(t, e, tt.wantErr[c])
					if n := len(e.capture.Exchanges()); n != 2 {
						t.Errorf("%d requests, want 2", n)
					}
				})
			}
		})
	}
}

// checkBodyBound runs large.json's question through the agent and as a stream: the answer
// arrives whole, or, when wantErr is set, the call fails with an error saying it.
func checkBodyBound(t *testing.T, e *env, wantErr string) {
	t.Helper()
	const question = "长回答：北京天气"
	answer := strings.Repeat("北京：晴，气温26℃，东南风2级。", 60) // large.json's, 2700 bytes
	w := &weather{}
	t.Run("agent", func(t *testing.T) {
		agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini", Tools: []*tool.Tool{w.tool()}})
		res, err := agent.Run(testContext(t), question)
		if wantErr == "" {
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Output != answer {
				t.Errorf("output of %d bytes; want the %d bytes of the answer", len(res.Output), len(answer))
			}
			return
		}
		checkFailedRun(t, res, err, w, nil)
		if !strings.Contains(err.Error(), wantErr) {
			t.Errorf("err = %v; want it to say %q", err, wantErr)
		}
	})
	t.Run("stream", func(t *testing.T) {
		got := stream(testContext(t), e.streaming,
			streamRequest(w.tool(), openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: question}))
		err := errors.Join(got.openErr, got.err)
		if wantErr == "" {
			if err != nil || got.msg.Content != answer {
				t.Fatalf("stream: %v, content of %d bytes; want the %d bytes of the answer", err, len(got.msg.Content), len(answer))
			}
			return
		}
		if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("stream error = %v after %d chunks; want it to say %q", err, got.chunks, wantErr)
		}
	})
}

// The *openai.APIError an *openaichat.Error unwraps to is the one go-openai builds from the
// same body, so that "code written for go-openai's errors reads it" (openaichat's doc): a
// numeric code is an int, as go-openai's APIError.UnmarshalJSON forces it.
func TestAPIErrorCodeAsGoOpenAI(t *testing.T) {
	t.Parallel()
	s := newServer(t, "errorobject.json")
	got := map[client]any{}
	for _, c := range clients {
		t.Run(string(c), func(t *testing.T) {
			e := s.newEnv(t, c, clientOptions{transport: withTransport(nil)})
			agent := agentkit.New(e.model, &agentkit.Options{Model: "gpt-4o-mini"})
			_, err := agent.Run(testContext(t), "上游失败：北京天气")
			var api *openai.APIError
			if !errors.As(err, &api) {
				t.Fatalf("err = %v (%T); want an *openai.APIError", err, err)
			}
			got[c] = api.Code
		})
	}
	if want := map[client]any{goOpenAI: 503, openAIChat: 503}; !cmp.Equal(got, want) {
		t.Errorf("APIError.Code (-want +got):\n%s", cmp.Diff(want, got))
	}
}
