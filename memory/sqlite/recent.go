package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// Partial loads of a session (agentkit.RecentLoader). Two tables index the messages as they
// are inserted (the trigger messages_index): turns holds the sequence numbers of the user
// messages, call_ids the tool call ids. A partial load finds where the latest turns begin in
// turns and reads only the messages it keeps; CallIDUsed asks call_ids.

// loadRoom is the spare capacity of a partial load: the system prompt and the first
// messages of the run that loads it fit without a new array.
const loadRoom = 8

// LoadRecent loads the session's messages up to its first user message and its latest
// recent turns, or all of them when it has no more turns than that (agentkit.RecentLoader):
// it reads only the rows it returns.
func (s *Store) LoadRecent(ctx context.Context, session string, recent int) ([]openai.ChatCompletionMessage, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, fmt.Errorf("sqlite: loading session %q: %w", session, err)
	}
	recent = max(recent, 1)
	// The session only grows: a turn found here is still where it was when the messages
	// are read, whatever is appended in between.
	var first, from sql.NullInt64
	var enough bool
	err := s.db.QueryRowContext(ctx, `SELECT
		(SELECT MIN(seq) FROM turns WHERE session = ?1),
		(SELECT seq FROM turns WHERE session = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2),
		EXISTS (SELECT 1 FROM turns WHERE session = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?3)`,
		session, recent-1, recent+1).Scan(&first, &from, &enough)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: loading session %q: %w", session, err)
	}
	// enough: the session has at least recent+2 turns, so the latest recent ones begin
	// after the first turn's replies; else there is nothing to leave out.
	if !enough || !first.Valid || !from.Valid || from.Int64 <= first.Int64+1 {
		msgs, err := s.load(ctx, session, nil, noGap)
		return msgs, 0, err
	}
	g := gap{first: first.Int64, from: from.Int64}
	msgs, err := s.load(ctx, session, make([]openai.ChatCompletionMessage, 0, loadRoom), g)
	if err != nil {
		return nil, 0, err
	}
	if int64(len(msgs)) <= g.first {
		// The rows up to the first user message are fewer than its sequence number says.
		return nil, 0, fmt.Errorf("sqlite: session %q: %w: %d messages before the first user message, whose sequence number is %d", session, ErrCorrupt, len(msgs), g.first)
	}
	return msgs, int(g.from - g.first - 1), nil
}

// CallIDUsed reports whether a tool call of the session uses id (agentkit.RecentLoader).
func (s *Store) CallIDUsed(ctx context.Context, session, id string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, "SELECT 1 FROM call_ids WHERE session = ? AND id = ?", session, id).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("sqlite: session %q: %w", session, err)
	}
	return true, nil
}

// indexVersion1 fills turns and call_ids from the messages of a database of schema version
// 1, as the trigger messages_index does for each new row. A row that is not JSON is left
// out of them: loading it whole reports it.
const indexVersion1 = `
INSERT OR IGNORE INTO turns (session, seq)
	SELECT session, seq FROM messages
	WHERE json_valid(message) AND json_extract(message, '$.role') = 'user';
WITH valid AS MATERIALIZED (SELECT session, message FROM messages WHERE json_valid(message))
INSERT OR IGNORE INTO call_ids (session, id)
	SELECT valid.session, json_extract(valid.message, call.fullkey || '.id') FROM valid, json_each(valid.message, '$.tool_calls') AS call
	WHERE json_type(valid.message, call.fullkey || '.id') = 'text';
`
