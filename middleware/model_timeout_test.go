package middleware_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/middleware"
)

func TestModelTimeout(t *testing.T) {
	slow := agentkit.ModelFunc(func(ctx context.Context, _ openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		<-ctx.Done()
		return openai.ChatCompletionResponse{}, ctx.Err()
	})
	t.Run("deadline passes", func(t *testing.T) {
		_, err := wrap(middleware.ModelTimeout(20*time.Millisecond), slow).CreateChatCompletion(context.Background(), chatReq)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 20ms") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("stream deadline passes", func(t *testing.T) {
		open := func(ctx context.Context, _ openai.ChatCompletionRequest) (agentkit.Stream, error) {
			return hangingStream{ctx}, nil
		}
		st, err := middleware.ModelTimeout(20*time.Millisecond).WrapStream(open)(context.Background(), chatReq)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if _, err := st.Recv(); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 20ms") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("run canceled is not a timeout", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(10*time.Millisecond, cancel)
		_, err := wrap(middleware.ModelTimeout(time.Hour), slow).CreateChatCompletion(ctx, chatReq)
		if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "timed out") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("fast call untouched", func(t *testing.T) {
		fast := agentkit.ModelFunc(func(ctx context.Context, _ openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
			if _, ok := ctx.Deadline(); !ok {
				return openai.ChatCompletionResponse{}, errors.New("no deadline")
			}
			return openai.ChatCompletionResponse{ID: "ok"}, nil
		})
		resp, err := wrap(middleware.ModelTimeout(time.Minute), fast).CreateChatCompletion(context.Background(), chatReq)
		if err != nil || resp.ID != "ok" {
			t.Errorf("%v %v", resp.ID, err)
		}
	})
	mustPanic(t, "ModelTimeout(0)", func() { middleware.ModelTimeout(0) })
}

// hangingStream sends nothing until its context is done.
type hangingStream struct{ ctx context.Context }

func (s hangingStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	<-s.ctx.Done()
	return openai.ChatCompletionStreamResponse{}, s.ctx.Err()
}

func (hangingStream) Close() error { return nil }

// TestModelTimeoutInsideRetry: with the real client, an attempt that hangs past its deadline
// is retried, and the retry succeeds.
func TestModelTimeoutInsideRetry(t *testing.T) {
	var n atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
		if n.Add(1) == 1 {
			select { // hang until the client gives up
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(okBody))
	}))
	defer srv.Close()
	defer close(release)
	var s sleeps
	var first error
	m := agentkit.Model(client(t, srv.URL, true))
	m = wrap(middleware.ModelTimeout(500*time.Millisecond), m)
	m = agentkit.WrapModel(m, middleware.ModelRetry(&middleware.ModelRetryOptions{Sleep: s.sleep, OnRetry: func(_ context.Context, n int, err error, _ time.Duration) {
		if n == 1 {
			first = err
		}
	}}))
	resp, err := m.CreateChatCompletion(context.Background(), chatReq)
	if err != nil || resp.Choices[0].Message.Content != "你好" || n.Load() < 2 {
		t.Errorf("resp %v err %v after %d requests", resp.Choices, err, n.Load())
	}
	if !errors.Is(first, context.DeadlineExceeded) || !strings.Contains(first.Error(), "timed out after 500ms") {
		t.Errorf("first attempt's error %v, want the attempt's timeout", first)
	}
}
