package openaichat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// stream reads a server-sent event stream of chat-completion chunks.
//
// Its end: "data: [DONE]" is the normal end, with or without a finish_reason before it
// (OpenRouter's Kimi sends none). A body that ends — or a connection cut, which net/http
// reports as io.ErrUnexpectedEOF — after a chunk carried a finish_reason but before [DONE] is
// a normal end too (the model's message is whole; only a usage chunk can be missing). One
// that ends before either is agentkit.ErrStreamTruncated. An "event: error"
// event, or a data payload that is an error object, is the provider's *Error.
//
// Provider extras arrive as fragments in the chunks' deltas; the stream merges them (see
// extrasAcc) and, at the normal end, returns one more chunk whose delta carries the merged
// extras (agentkit.SetExtras on a message, here on the delta's FunctionCall), which the
// Assembler puts on the message it builds.
type stream struct {
	ctx      context.Context // the request's: usage is reported in it
	body     io.ReadCloser
	r        *bufio.Reader
	c        *Client
	finished bool     // a chunk carried a finish_reason
	err      error    // once set, every Recv returns it
	lines    []string // lines read and not yet returned (a lone CR ends a line)
	extras   extrasAcc
}

func newStream(ctx context.Context, resp *http.Response, c *Client) *stream {
	return &stream{ctx: ctx, body: resp.Body, r: bufio.NewReader(resp.Body), c: c, extras: extrasAcc{c: c, fields: c.fields}}
}

func (s *stream) Close() error { return s.body.Close() }

func (s *stream) Recv() (openai.ChatCompletionStreamResponse, error) {
	for s.err == nil {
		event, data, err := s.next()
		ended := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) // a cut connection is the latter
		switch {
		case ended && s.finished:
			return s.end()
		case ended:
			s.err = agentkit.ErrStreamTruncated
		case err != nil:
			s.err = fmt.Errorf("openaichat: reading the stream: %w", err)
		case event == "error":
			s.err = parseError(data, http.StatusInternalServerError)
		case string(bytes.TrimSpace(data)) == "[DONE]":
			return s.end()
		default:
			chunk, ok, err := s.decode(data)
			if err != nil {
				s.err = err
			} else if ok {
				return chunk, nil
			}
		}
	}
	return openai.ChatCompletionStreamResponse{}, s.err
}

// end returns the chunk carrying the merged extras, once, and then io.EOF.
func (s *stream) end() (openai.ChatCompletionStreamResponse, error) {
	s.err = io.EOF
	e, ok := s.extras.result()
	if !ok {
		return openai.ChatCompletionStreamResponse{}, io.EOF
	}
	carrier := agentkit.SetExtras(openai.ChatCompletionMessage{}, e)
	return openai.ChatCompletionStreamResponse{Object: "chat.completion.chunk",
		Choices: []openai.ChatCompletionStreamChoice{{Index: 0, Delta: openai.ChatCompletionStreamChoiceDelta{FunctionCall: carrier.FunctionCall}}}}, nil
}

// decode reads one data payload: a chunk (ok), nothing to return (an empty payload), or the
// error object a provider sent as data.
func (s *stream) decode(data []byte) (openai.ChatCompletionStreamResponse, bool, error) {
	var chunk openai.ChatCompletionStreamResponse
	if len(bytes.TrimSpace(data)) == 0 {
		return chunk, false, nil
	}
	var probe struct {
		Error json.RawMessage `json:"error"`
	}
	if bytes.Contains(data, []byte(`"error"`)) && json.Unmarshal(data, &probe) == nil && len(probe.Error) > 0 && string(probe.Error) != "null" {
		return chunk, false, parseError(data, http.StatusInternalServerError)
	}
	if err := json.Unmarshal(data, &chunk); err != nil {
		return chunk, false, fmt.Errorf("openaichat: a stream chunk is not JSON: %w: %.200q", err, data)
	}
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		if ch.FinishReason != "" {
			s.finished = true
		}
		ch.Delta.FunctionCall = nil // legacy function calling; the extras go there
	}
	if err := s.extras.add(data); err != nil {
		return chunk, false, err
	}
	if chunk.Usage != nil {
		var u struct {
			Usage json.RawMessage `json:"usage"`
		}
		_ = json.Unmarshal(data, &u)
		agentkit.ReportUsage(s.ctx, reportedUsage(u.Usage, *chunk.Usage))
	}
	return chunk, true, nil
}

// next returns the next event's type and data (the WHATWG server-sent events rules: data
// lines joined by "\n", comment lines and other fields skipped, an event dispatched at a
// blank line, and an unfinished event at the end of the body dropped).
func (s *stream) next() (event string, data []byte, err error) {
	hasData := false
	for {
		l, err := s.line()
		if err != nil {
			return "", nil, err
		}
		if l == "" {
			if hasData {
				return event, data, nil
			}
			event = ""
			continue
		}
		field, value, _ := strings.Cut(l, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			event = value
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		}
	}
}

// line returns the next line, without its end: "\n", "\r\n" or a lone "\r".
func (s *stream) line() (string, error) {
	if len(s.lines) == 0 {
		var b []byte
		for {
			part, err := s.r.ReadSlice('\n')
			b = append(b, part...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue // a long line: the body's bound bounds it
			}
			if err != nil && (len(b) == 0 || !errors.Is(err, io.EOF)) {
				return "", err
			}
			break // a line, or the last one, unterminated: its event is unfinished
		}
		b = bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
		s.lines = strings.Split(string(b), "\r")
	}
	l := s.lines[0]
	s.lines = s.lines[1:]
	return l, nil
}
