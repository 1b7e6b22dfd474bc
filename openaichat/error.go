package openaichat

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/internal/retryafter"
)

// Error is a provider's error: an HTTP error status, a 200 body that is an error object (a
// gateway's upstream failed), or an SSE error event inside a stream. errors.As finds an
// *openai.APIError in it, with the same status, code, type, param and message, so code
// written for go-openai's errors (middleware.ModelRetry's retry rules included) reads it.
type Error struct {
	// StatusCode is the HTTP status: the response's, or for an error object in a 200 body
	// or a stream, the status the object names (its status_code, or its code when that is
	// an HTTP status), else 502 for a body and 500 for a stream.
	StatusCode int
	// Code, Type, Param and Message are the error object's fields, as sent: Code is a string,
	// an int (a whole number, as go-openai's APIError holds it), a float64 or nil.
	Code    any
	Type    string
	Param   string
	Message string
	// Metadata is the error object's metadata, as sent: OpenRouter's names the upstream
	// provider and holds the upstream's own message ("raw"). Nil when there is none.
	Metadata json.RawMessage
	// Header is the response's header (request ids, rate-limit headers).
	Header http.Header
	// Body is the error body or event as received.
	Body []byte
}

// Error returns the status, code and message, and the upstream's message when the error's
// metadata holds one (OpenRouter's "Provider returned error" says nothing on its own).
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "openaichat: status %d", e.StatusCode)
	if e.Code != nil && fmt.Sprint(e.Code) != "" {
		fmt.Fprintf(&b, ", code %v", e.Code)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	var md struct {
		Provider string `json:"provider_name"`
		Raw      any    `json:"raw"`
	}
	if json.Unmarshal(e.Metadata, &md) == nil && md.Raw != nil {
		raw, ok := md.Raw.(string)
		if !ok {
			r, _ := json.Marshal(md.Raw)
			raw = string(r)
		}
		fmt.Fprintf(&b, " (%s: %s)", strings.TrimSpace(md.Provider+" upstream"), raw)
	}
	return b.String()
}

// Unwrap returns the error as an *openai.APIError.
func (e *Error) Unwrap() error {
	api := &openai.APIError{Code: e.Code, Message: e.Message, Type: e.Type, HTTPStatusCode: e.StatusCode,
		HTTPStatus: fmt.Sprintf("%d %s", e.StatusCode, http.StatusText(e.StatusCode))}
	if e.Param != "" {
		p := e.Param
		api.Param = &p
	}
	return api
}

// RetryAfter returns the wait the response's Retry-After or retry-after-ms header asked for,
// 0 when it asked none ([middleware.RetryAfterError]).
func (e *Error) RetryAfter() time.Duration {
	d, _ := retryafter.Parse(e.Header.Get("Retry-After"), e.Header.Get("Retry-After-Ms"), time.Now())
	return d
}

// errorObject is the shape of an error body: {"error": {...}}, with the fields providers use.
type errorObject struct {
	Error *struct {
		Message    string          `json:"message"`
		Type       string          `json:"type"`
		Param      any             `json:"param"`
		Code       any             `json:"code"`
		StatusCode int             `json:"status_code"`
		Metadata   json.RawMessage `json:"metadata"`
	} `json:"error"`
	Message string `json:"message"` // servers that send {"message": ...}
	Detail  any    `json:"detail"`  // and {"detail": ...}
}

// errorResponse is the *Error of an error response.
func errorResponse(resp *http.Response, body []byte) *Error {
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	e := parseError(body, http.StatusBadGateway)
	e.Header = resp.Header
	if !ok {
		e.StatusCode = resp.StatusCode
	}
	return e
}

// parseError reads an error object; status is the status to give it when the object names
// none. A body that is not an error object becomes an Error whose message is the body's
// text, bounded.
func parseError(body []byte, status int) *Error {
	e := &Error{StatusCode: status, Body: body}
	var o errorObject
	if json.Unmarshal(body, &o) != nil {
		e.Message = truncate(strings.TrimSpace(string(body)), 1000)
		if e.Message == "" {
			e.Message = http.StatusText(status)
		}
		return e
	}
	switch {
	case o.Error != nil:
		x := o.Error
		e.Message, e.Type, e.Code, e.Metadata = x.Message, x.Type, x.Code, x.Metadata
		if f, ok := x.Code.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			e.Code = int(f) // as go-openai's APIError holds a numeric code
		}
		if x.Param != nil {
			e.Param = fmt.Sprint(x.Param)
		}
		if code, ok := e.Code.(int); ok && code >= 400 && code <= 599 {
			e.StatusCode = code
		}
		if x.StatusCode >= 400 && x.StatusCode <= 599 {
			e.StatusCode = x.StatusCode
		}
	case o.Message != "":
		e.Message = o.Message
	case o.Detail != nil:
		d, _ := json.Marshal(o.Detail)
		e.Message = string(d)
	default:
		e.Message = truncate(string(body), 1000)
	}
	return e
}

// truncate bounds s to n bytes, cut at a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
