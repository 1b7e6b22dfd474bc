package middleware

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/toolcall/toolcall/internal/httpbody"
)

// TransportOptions configures [Transport]. The zero value gives the defaults on each field.
type TransportOptions struct {
	// MaxBodyBytes bounds the body of a response read through the transport: reading past it
	// fails with an error saying so, so that no reply, however large, is read whole. Zero
	// means 16 MiB; a stream's body is bounded as a whole.
	MaxBodyBytes int64
}

// Transport returns the http.RoundTripper to give an *openai.Client's HTTP client
// (go-openai's ClientConfig.HTTPClient): it sends requests with base (nil means
// http.DefaultTransport) and makes three things go-openai cannot see visible to it:
//
//   - A Retry-After or retry-after-ms header of an error response (status 400 and above) is
//     handed to the [ModelRetry] whose attempt made the request, which then waits what the
//     server asked (go-openai does not expose response headers on its errors).
//   - A response with status 200 whose JSON body is an error object ({"error": {…}} and no
//     choices, as gateways send when an upstream fails) becomes the error response it is:
//     its status is the error's code when that is an HTTP status (400 to 599), else 502, so
//     that go-openai returns an *openai.APIError with the server's message instead of a
//     response without choices.
//   - A response body is bounded (TransportOptions.MaxBodyBytes).
//
// Requests are never modified.
//
//	cfg := openai.DefaultConfig(apiKey)
//	cfg.HTTPClient = &http.Client{Transport: middleware.Transport(nil, nil)}
//	client := openai.NewClientWithConfig(cfg)
//	agent := agentkit.New(client, &agentkit.Options{
//		ModelMiddleware: []agentkit.ModelMiddleware{middleware.ModelRetry(nil)},
//	})
//
// How Retry-After reaches ModelRetry: each attempt puts a fresh holder in the context it
// passes to the model; go-openai builds its *http.Request with that context; the transport
// records the header in the holder found in req.Context(), which ModelRetry reads when the
// attempt fails.
func Transport(base http.RoundTripper, opts *TransportOptions) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	t := &transport{base: base, max: 16 << 20}
	if opts != nil && opts.MaxBodyBytes > 0 {
		t.max = opts.MaxBodyBytes
	}
	return t
}

type transport struct {
	base http.RoundTripper
	max  int64
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	resp.Body = httpbody.Limit(resp.Body, t.max, fmt.Errorf("middleware: the response body is larger than %d bytes (TransportOptions.MaxBodyBytes)", t.max))
	if resp.StatusCode >= 400 {
		if h, ok := req.Context().Value(retryAfterKey{}).(*retryAfterHolder); ok {
			h.set(resp.Header.Get("Retry-After"), resp.Header.Get("Retry-After-Ms"))
		}
	}
	if resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return errorObject(resp)
	}
	return resp, nil
}

// errorObject reads the body of a 200 JSON response, and gives the response the status of
// the error object the body is, when it is one.
func errorObject(resp *http.Response) (*http.Response, error) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var v struct {
		Choices json.RawMessage `json:"choices"`
		Error   *struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || v.Error == nil || v.Choices != nil {
		return resp, nil
	}
	resp.StatusCode = http.StatusBadGateway
	var code int
	if json.Unmarshal(v.Error.Code, &code) == nil && code >= 400 && code <= 599 {
		resp.StatusCode = code
	}
	resp.Status = fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	return resp, nil
}
