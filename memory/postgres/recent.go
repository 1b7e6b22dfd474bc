package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	openai "github.com/sashabaranov/go-openai"
)

// Partial loads of a session (agentkit.RecentLoader). A partial index of the messages whose
// role is user (toolcall_messages_turns) holds where the session's turns begin: a partial
// load finds there where its latest turns begin, then reads only the messages it keeps (two
// ranges of the primary key). CallIDUsed asks toolcall_call_ids.

// loadRoom is the spare capacity of a partial load: the system prompt and the first
// messages of the run that loads it fit without a new array.
const loadRoom = 8

// LoadRecent loads the session's messages up to its first user message and its latest
// recent turns, or all of them when it has no more turns than that (agentkit.RecentLoader):
// it reads only the rows it returns.
func (s *Store) LoadRecent(ctx context.Context, session string, recent int) ([]openai.ChatCompletionMessage, int, error) {
	recent = max(recent, 1)
	// The session only grows: a turn found here is still where it was when the messages
	// are read, whatever is appended in between.
	var first, from *int64
	var enough bool
	err := s.read(ctx, fmt.Sprintf("loading session %q", session), func(rows pgx.Rows) error {
		return rows.Scan(&first, &from, &enough)
	}, `SELECT
		(SELECT seq FROM {s}.toolcall_messages WHERE session = $1 AND role = 'user' ORDER BY seq LIMIT 1),
		(SELECT seq FROM {s}.toolcall_messages WHERE session = $1 AND role = 'user' ORDER BY seq DESC LIMIT 1 OFFSET $2),
		EXISTS (SELECT 1 FROM {s}.toolcall_messages WHERE session = $1 AND role = 'user' ORDER BY seq DESC LIMIT 1 OFFSET $3)`,
		session, recent-1, recent+1)
	if err != nil {
		return nil, 0, err
	}
	// enough: the session has at least recent+2 turns, so the latest recent ones begin
	// after the first turn's replies; else there is nothing to leave out.
	if !enough || first == nil || from == nil || *from <= *first+1 {
		msgs, err := s.load(ctx, session, nil, noGap)
		return msgs, 0, err
	}
	g := gap{first: *first, from: *from}
	msgs, err := s.load(ctx, session, make([]openai.ChatCompletionMessage, 0, loadRoom), g)
	if err != nil {
		return nil, 0, err
	}
	if int64(len(msgs)) <= g.first {
		// The rows up to the first user message are fewer than its sequence number says.
		return nil, 0, fmt.Errorf("postgres: session %q: %w: %d messages before the first user message, whose sequence number is %d", session, ErrCorrupt, len(msgs), g.first)
	}
	return msgs, int(g.from - g.first - 1), nil
}

// CallIDUsed reports whether a tool call of the session uses id (agentkit.RecentLoader).
// The empty id is never used: calls without an id are not indexed.
func (s *Store) CallIDUsed(ctx context.Context, session, id string) (bool, error) {
	var used bool
	err := s.read(ctx, fmt.Sprintf("session %q", session), func(rows pgx.Rows) error {
		return rows.Scan(&used)
	}, "SELECT EXISTS (SELECT 1 FROM {s}.toolcall_call_ids WHERE session = $1 AND id = $2)", session, id)
	return used, err
}
