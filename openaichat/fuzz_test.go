package openaichat_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/openaichat"
)

// TestDeepAndHugeReplies: a reply of 10 MB of nesting, plain or streamed, is an error, never a
// stack overflow; a stream line of 10 MB is read whole within the bound.
func TestDeepAndHugeReplies(t *testing.T) {
	deep := strings.Repeat("[", 10<<20)
	tests := []struct {
		name, contentType, body string
	}{
		{"plain", "application/json", `{"choices":[{"index":0,"message":{"role":"assistant","content":` + deep + `}}]}`},
		{"extras", "application/json", `{"choices":[{"index":0,"message":{"role":"assistant","reasoning_details":` + deep + `}}]}`},
		{"stream", "text/event-stream", `data: {"choices":[{"index":0,"delta":{"content":` + deep + "}}]}\n\n" + done},
		{"stream extras", "text/event-stream", `data: {"choices":[{"index":0,"delta":{"reasoning_details":` + deep + "}}]}\n\n" + done},
		{"error event", "text/event-stream", "event: error\ndata: " + deep + "\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, 200, tt.contentType, tt.body)
			c := openaichat.New(srv.url, nil)
			var err error
			if tt.contentType == "application/json" {
				_, err = c.CreateChatCompletion(context.Background(), hello)
			} else {
				_, err = recvWith(c)
			}
			if err == nil {
				t.Fatal("no error")
			}
		})
	}
	long := strings.Repeat("字", 3<<20) // 9 MB of text in one line
	srv := newServer(t, 200, "text/event-stream", `data: {"choices":[{"index":0,"delta":{"content":"`+long+`"},"finish_reason":"stop"}]}`+"\n\n"+done)
	got, err := recvWith(openaichat.New(srv.url, nil))
	if err != nil || got != long {
		t.Fatalf("a 9 MB line: %d bytes, %v", len(got), err)
	}
}

// recvWith streams hello and returns the text, or the error that ended the stream.
func recvWith(c *openaichat.Client) (string, error) {
	st, err := c.CreateChatCompletionStream(context.Background(), hello)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var b strings.Builder
	for {
		chunk, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		for _, ch := range chunk.Choices {
			b.WriteString(ch.Delta.Content)
		}
	}
}

// FuzzStream: any body, read as a stream, ends with io.EOF, ErrStreamTruncated, an *Error or
// a decoding error — never a panic or a hang — and an Assembler takes every chunk.
func FuzzStream(f *testing.F) {
	f.Add(hiChunk + finishChunk + done)
	f.Add("event: error\ndata: {\"error\":{\"message\":\"x\",\"status_code\":400}}\n\n")
	f.Add("data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_details\":[{\"type\":\"reasoning.text\",\"text\":\"a\",\"index\":0}],\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"},\"extra_content\":{}}]}}]}\r\r" + done)
	f.Add(": comment\ndata: [DONE]\n")
	f.Fuzz(func(t *testing.T, body string) {
		srv := newServer(t, 200, "text/event-stream", body)
		st, err := openaichat.New(srv.url, nil).CreateChatCompletionStream(context.Background(), hello)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		var a agentkit.Assembler
		for {
			chunk, err := st.Recv()
			if err != nil {
				var pe *openaichat.Error
				if !errors.Is(err, io.EOF) && !errors.Is(err, agentkit.ErrStreamTruncated) && !errors.As(err, &pe) && !strings.HasPrefix(err.Error(), "openaichat: ") {
					t.Fatalf("stream ended with %v (%T)", err, err)
				}
				if errors.Is(err, io.EOF) {
					_, msg, _, _ := a.Finish(nil)
					if _, ok := agentkit.Extras(msg); !ok && msg.FunctionCall != nil {
						t.Errorf("the message carries a function_call that is not extras: %+v", msg.FunctionCall)
					}
				}
				return
			}
			a.Add(nil, chunk)
		}
	})
}

// FuzzResponse: any 200 JSON body is a response or an error, never a panic.
func FuzzResponse(f *testing.F) {
	f.Add(okReply)
	f.Add(`{"choices":[{"index":0,"message":{"role":"assistant","reasoning":"r","tool_calls":[{"id":"c","function":{"name":"f","arguments":{"a":1}},"extra_content":{"x":1}}]}}],"usage":{"prompt_tokens":1,"prompt_tokens_details":{"cache_write_tokens":2}}}`)
	f.Add(`{"error":{"message":"m","code":503}}`)
	f.Fuzz(func(t *testing.T, body string) {
		srv := newServer(t, 200, "application/json", body)
		resp, err := openaichat.New(srv.url, nil).CreateChatCompletion(context.Background(), hello)
		if err != nil {
			return
		}
		for _, ch := range resp.Choices {
			if fc := ch.Message.FunctionCall; fc != nil && fc.Name != agentkit.ExtrasName {
				t.Errorf("a legacy function_call came through: %+v", fc)
			}
		}
	})
}
