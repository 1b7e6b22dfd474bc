package redis

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// LoadRecent loads the session's messages up to its first user message and its latest
// recent turns, or all of them when it has no more turns than that (agentkit.RecentLoader).
// One read-only script finds where the turns begin in the session's list of user-message
// positions and reads only the messages it returns.
func (s *Store) LoadRecent(ctx context.Context, session string, recent int) ([]openai.ChatCompletionMessage, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("redis: loading session %q: %w", session, failed(ctx, err))
	}
	res, err := recentScript.Run(ctx, s.rdb, []string{s.key(session, "msgs"), s.key(session, "turns")}, max(recent, 1)).Slice()
	if err != nil {
		return nil, 0, fmt.Errorf("redis: loading session %q: %w", session, failed(ctx, err))
	}
	var omitted, head int64
	var items []any
	ok := len(res) == 3
	if ok {
		omitted, ok = res[0].(int64)
	}
	if ok {
		head, ok = res[1].(int64)
	}
	if ok {
		items, ok = res[2].([]any)
	}
	if !ok {
		return nil, 0, fmt.Errorf("redis: loading session %q: unexpected reply %v", session, res)
	}
	raw := make([]string, len(items))
	for i, it := range items {
		if raw[i], ok = it.(string); !ok {
			return nil, 0, fmt.Errorf("redis: loading session %q: unexpected reply item %T", session, it)
		}
	}
	msgs, err := decodeAll(session, raw, int(head)-1, int(omitted))
	if err != nil {
		return nil, 0, err
	}
	if omitted > 0 && msgs[head-1].Role != openai.ChatMessageRoleUser {
		return nil, 0, fmt.Errorf("redis: session %q: %w: its index of turns points to a %s message at %d", session, ErrCorrupt, msgs[head-1].Role, head-1)
	}
	return msgs, int(omitted), nil
}

// CallIDUsed reports whether a tool call of the session uses id (agentkit.RecentLoader):
// SISMEMBER of the session's set of call ids.
func (s *Store) CallIDUsed(ctx context.Context, session, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("redis: session %q: %w", session, failed(ctx, err))
	}
	used, err := s.rdb.SIsMember(ctx, s.key(session, "calls"), id).Result()
	if err != nil {
		return false, fmt.Errorf("redis: session %q: %w", session, failed(ctx, err))
	}
	return used, nil
}
