package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Partial loads of a SQLite session (agentkit.LoadOptions.RecentTurns). Two tables index
// the messages as they are appended: turns holds the sequence numbers of the user
// messages, call_ids the tool call ids. A partial load finds where the latest turns begin
// in turns and reads only the messages it keeps; CallIDUsed asks call_ids.

// loadRecent loads the session's messages up to its first user message and its latest
// recent turns (recent > 0), or all of them when it has no more turns than that.
func (s *SQLite) loadRecent(ctx context.Context, session string, recent int) (agentkit.History, error) {
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
		return agentkit.History{}, fmt.Errorf("memory: loading session %q: %w", session, err)
	}
	// enough: the session has at least recent+2 turns, so the latest recent ones begin
	// after the first turn's replies; else there is nothing to leave out.
	if !enough || !first.Valid || !from.Valid || from.Int64 <= first.Int64+1 {
		msgs, err := s.load(ctx, session, nil, noGap)
		return agentkit.History{Messages: msgs}, err
	}
	g := gap{first: first.Int64, from: from.Int64}
	msgs, err := s.load(ctx, session, make([]openai.ChatCompletionMessage, 0, loadRoom), g)
	if err != nil {
		return agentkit.History{}, err
	}
	if int64(len(msgs)) <= g.first {
		// The rows up to the first user message are fewer than its sequence number says.
		return agentkit.History{}, fmt.Errorf("memory: session %q: %w: %d messages before the first user message, whose sequence number is %d", session, ErrCorrupt, len(msgs), g.first)
	}
	return agentkit.History{
		Messages:   msgs,
		Omitted:    int(g.from - g.first - 1),
		CallIDUsed: func(ctx context.Context, id string) bool { return s.callIDUsed(ctx, session, id) },
	}, nil
}

// callIDUsed reports whether a tool call of the session uses id. When the database cannot
// tell, it answers true: the run then renames its call, which is always safe.
func (s *SQLite) callIDUsed(ctx context.Context, session, id string) bool {
	var one int
	err := s.db.QueryRowContext(ctx, "SELECT 1 FROM call_ids WHERE session = ? AND id = ?", session, id).Scan(&one)
	return !errors.Is(err, sql.ErrNoRows)
}

// indexAppended adds the user messages and the tool call ids of msgs, appended to the
// session from sequence number next, to turns and call_ids.
func indexAppended(ctx context.Context, tx *sql.Tx, session string, next int64, msgs []openai.ChatCompletionMessage) error {
	for i := range msgs {
		if err := indexMessage(ctx, tx, session, next+int64(i), &msgs[i]); err != nil {
			return err
		}
	}
	return nil
}

func indexMessage(ctx context.Context, tx *sql.Tx, session string, seq int64, m *openai.ChatCompletionMessage) error {
	if m.Role == openai.ChatMessageRoleUser {
		if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO turns (session, seq) VALUES (?, ?)", session, seq); err != nil {
			return err
		}
	}
	for _, c := range m.ToolCalls {
		if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO call_ids (session, id) VALUES (?, ?)", session, c.ID); err != nil {
			return err
		}
	}
	return nil
}

// indexMessages fills turns and call_ids from the messages of a database of schema version
// 1. A row that cannot be decoded is left out of them: loading it whole reports it.
func indexMessages(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT session, seq, message FROM messages ORDER BY session, seq")
	if err != nil {
		return err
	}
	type row struct {
		session string
		seq     int64
		m       openai.ChatCompletionMessage
	}
	var all []row
	for rows.Next() {
		var r row
		var raw []byte
		if err := rows.Scan(&r.session, &r.seq, &raw); err != nil {
			continue
		}
		if r.m, err = decodeMessage(raw); err != nil {
			continue
		}
		if r.m.Role == openai.ChatMessageRoleUser || len(r.m.ToolCalls) > 0 {
			all = append(all, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i := range all {
		if err := indexMessage(ctx, tx, all[i].session, all[i].seq, &all[i].m); err != nil {
			return err
		}
	}
	return nil
}
