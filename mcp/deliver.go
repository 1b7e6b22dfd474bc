package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A delivery records whether one tools/call request may have reached its server. A call
// that certainly did not (its connection was already closed, its write failed, the server
// answered 404 or 400 for a session it no longer knows) may be sent again after a
// reconnect; a call that may have run must never run twice.
type delivery struct {
	maybe atomic.Bool // the request may have reached the server
}

type deliveryKey struct{}

func withDelivery(ctx context.Context, d *delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

func deliveryOf(ctx context.Context) *delivery {
	d, _ := ctx.Value(deliveryKey{}).(*delivery)
	return d
}

// track returns t with its deliveries tracked (see delivery). The go-sdk's HTTP transports
// must not be wrapped; a streamable one is copied with a tracked HTTP client, and so is an
// SSE one, which also gets a connection that outlives the dial (sseTransport).
func track(t sdkmcp.Transport) sdkmcp.Transport {
	switch t := t.(type) {
	case *sdkmcp.StreamableClientTransport:
		cp := *t
		cp.HTTPClient = trackedHTTPClient(t.HTTPClient)
		return &cp
	case *sdkmcp.SSEClientTransport:
		cp := *t
		cp.HTTPClient = trackedHTTPClient(t.HTTPClient)
		return sseTransport{&cp}
	}
	return trackedTransport{t}
}

// sseTransport connects an SSE transport with a context that outlives the dial: the
// go-sdk's SSE connection reads its event stream, for the whole session, with the context
// given to Connect, and the dial's ends once the session is initialized. That context is
// canceled when the dial's ends before the stream is open, and when the connection closes.
type sseTransport struct{ *sdkmcp.SSEClientTransport }

func (t sseTransport) Connect(ctx context.Context) (sdkmcp.Connection, error) {
	stream, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.SSEClientTransport.Connect(stream)
	if err == nil && !stop() { // the dial ended as the stream opened
		_ = conn.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, err
	}
	return sseConn{conn, cancel}, nil
}

// sseConn is an SSE connection that cancels its stream's context when it closes.
type sseConn struct {
	sdkmcp.Connection
	cancel context.CancelFunc
}

func (c sseConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// trackedTransport wraps a Transport whose connections take writes as delivered once Write
// returns nil (stdio, in-memory and other byte streams): a failed write never reached the
// server. HTTP transports are tracked by trackedRoundTripper instead, because a POST's
// failure does not prove the server did not handle it, and because the go-sdk's streamable
// connection must not be wrapped (it learns the session's state through an unexported
// method).
type trackedTransport struct{ sdkmcp.Transport }

func (t trackedTransport) Connect(ctx context.Context) (sdkmcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return trackedConn{conn}, nil
}

type trackedConn struct{ sdkmcp.Connection }

func (c trackedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if d := deliveryOf(ctx); d != nil && err == nil && isToolCall(msg) {
		d.maybe.Store(true)
	}
	return err
}

func isToolCall(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.Method == "tools/call"
}

// trackedRoundTripper records, for a tools/call POST, whether the server may have handled
// it: every outcome but a failed dial, a 404 (the spec's answer for an unknown session) or
// a 400 (the TypeScript SDK's "No valid session ID provided") counts as "may have", any
// other network error included. The go-sdk sends a call's POST with the call's context, and a call's context
// carries its delivery; the other requests made under it (a notifications/cancelled) are
// told apart by their method, read from a copy of the body (the go-sdk's bodies are in
// memory).
type trackedRoundTripper struct{ next http.RoundTripper }

func (rt trackedRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	d := deliveryOf(req.Context())
	if d == nil || req.Method != http.MethodPost || !postsToolCall(req) {
		return rt.next.RoundTrip(req)
	}
	resp, err := rt.next.RoundTrip(req)
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial": // never connected: nothing was sent
	case err != nil || (resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusBadRequest):
		d.maybe.Store(true)
	}
	return resp, err
}

// trackedHTTPClient returns a copy of c (http.DefaultClient when nil) whose transport tracks
// deliveries.
func trackedHTTPClient(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cp := *c
	next := cp.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	cp.Transport = trackedRoundTripper{next}
	return &cp
}

// postsToolCall reports whether req's body is a tools/call request.
func postsToolCall(req *http.Request) bool {
	if m := req.Header.Get("Mcp-Method"); m != "" {
		return m == "tools/call"
	}
	if req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	defer body.Close()
	var msg struct {
		Method string `json:"method"`
	}
	return json.NewDecoder(body).Decode(&msg) == nil && msg.Method == "tools/call"
}
