package memory

import "context"

type sessionKey struct{}

// WithSession returns a copy of ctx that carries the session id, for the tools of a run that
// need to know which conversation they serve — [RecallTool] reads it. The agent does not put
// the session into the tools' context by itself, so set it on the context of the run:
//
//	ctx = memory.WithSession(ctx, id)
//	res, err := agent.RunSession(ctx, id, input)
func WithSession(ctx context.Context, session string) context.Context {
	return context.WithValue(ctx, sessionKey{}, session)
}

// SessionFromContext returns the session id set by [WithSession], and whether there is one.
func SessionFromContext(ctx context.Context) (string, bool) {
	s, ok := ctx.Value(sessionKey{}).(string)
	return s, ok
}
