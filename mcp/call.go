package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// call calls the server's tool name with args, within the ServerConfig's CallTimeout.
//
// A call whose request certainly never reached the server (see delivery) — the session
// had ended, or the server no longer knew it — is sent again once, after one reconnection.
// A call that may have reached the server is never sent again: its failure is the call's.
func (r *remote) call(ctx context.Context, name string, outputSchema, args json.RawMessage) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.srv.CallTimeout)
	defer cancel()
	defer context.AfterFunc(r.c.ctx, cancel)()
	var lost *session
	for attempt := 0; ; attempt++ {
		s, err := r.live(ctx, lost)
		switch {
		case err != nil && (errors.Is(err, errClosed) || r.c.ctx.Err() != nil):
			return nil, r.callError(ctx, name, err)
		case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("mcp: server %q: the call of %s was not sent: its session was lost, and reconnecting did not finish before the call's deadline (CallTimeout %s): %w", r.srv.Name, name, r.srv.CallTimeout, context.DeadlineExceeded)
		case err != nil:
			return nil, err // the call was not sent: the error says why
		}
		d := &delivery{}
		res, err := r.send(withDelivery(ctx, d), s, name, args)
		switch {
		case err == nil && res.IsError:
			return nil, &ToolError{Result: &Result{Server: r.srv.Name, Tool: name, CallToolResult: res, OutputSchema: outputSchema}}
		case err == nil:
			return &Result{Server: r.srv.Name, Tool: name, CallToolResult: res, OutputSchema: outputSchema}, nil
		case ctx.Err() != nil || d.maybe.Load():
			return nil, r.callError(ctx, name, err)
		case attempt > 0:
			return nil, fmt.Errorf("mcp: server %q: the call of %s did not reach the server, before and after a reconnection: %w", r.srv.Name, name, err)
		}
		r.log.Warn("mcp: a call did not reach the server; reconnecting", "tool", name, "error", err)
		lost = s
	}
}

// send sends one tools/call with a progress token of its own, whose notifications reach
// the call's context (agentkit.ReportProgress).
func (r *remote) send(ctx context.Context, s *session, name string, args json.RawMessage) (*sdkmcp.CallToolResult, error) {
	token := "toolcall-" + strconv.FormatUint(r.c.tokens.Add(1), 10)
	r.progress.Store(token, ctx)
	defer r.progress.Delete(token)
	params := &sdkmcp.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken(token)
	return s.cs.CallTool(ctx, params)
}

// callError is the error of a call that failed without an answer from the tool.
func (r *remote) callError(ctx context.Context, name string, err error) error {
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc) && refuses(rpc.Code):
		return fmt.Errorf("mcp: server %q refused the call of %s: %s (JSON-RPC error %d)", r.srv.Name, name, rpc.Message, rpc.Code)
	case errors.Is(err, errClosed) || r.c.ctx.Err() != nil:
		return fmt.Errorf("mcp: server %q: the client was closed during the call of %s", r.srv.Name, name)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("mcp: server %q did not answer the call of %s within %s: it may still be running there: %w", r.srv.Name, name, r.srv.CallTimeout, context.DeadlineExceeded)
	case ctx.Err() != nil:
		return err
	}
	return fmt.Errorf("mcp: server %q: the call of %s failed, and may have run: %w", r.srv.Name, name, err)
}

// refuses reports whether a JSON-RPC error code says the server refused a request rather
// than failed running it: an unknown tool, invalid params, a request it could not read.
func refuses(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams:
		return true
	}
	return false
}
