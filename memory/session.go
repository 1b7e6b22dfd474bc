package memory

import (
	"context"

	"github.com/toolcall/toolcall/agentkit"
)

type sessionKey struct{}

// WithSession returns a copy of ctx that carries the session id, for the tools of a run that
// need to know which conversation they serve — [RecallTool] reads it. agent.RunSession puts
// its session there by itself (agentkit.SessionFromContext); WithSession is for runs that are
// not RunSession, or to override it.
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// SessionFromContext returns the session id set by [WithSession], or else the session of the
// agentkit.RunSession the context belongs to, and whether there is one.
func SessionFromContext(ctx context.Context) (string, bool) {
	if s, ok := ctx.Value(sessionKey{}).(string); ok {
		return s, ok
	}
	return agentkit.SessionFromContext(ctx)
}
