package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/toolcall/toolcall/memory"
)

// Search searches the session's history (memory.Searcher) in the database, with
// PostgreSQL's full-text search and a substring match beside it.
//
// Each row keeps the text searched (the message's content and parts, its refusal, the names
// and arguments of its tool calls), in lower case, and its tsvector under the 'simple'
// configuration (words, lower case, no stemming: the store does not know the language). A
// word of the query matches a message when its lexemes are found in the tsvector, or when
// it is a substring of the text: a text search configuration does not split Chinese (or
// Japanese, or Thai) into words, so "北京" is found inside "北京明天的天气怎么样" by the
// substring. A message ranks by the number of words of the query it contains (plus their
// count again when it contains the whole query, as memory.SearchMessages scores), then by
// ts_rank, then the more recent first.
//
// The rows of one session are found by the primary key; the search reads the session's
// rows, not the other sessions'.
func (s *Store) Search(ctx context.Context, session string, q memory.Query) ([]memory.Match, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	phrase := strings.ToLower(strings.TrimSpace(q.Text))
	words := strings.Fields(phrase)
	slices.Sort(words)
	if words = slices.Compact(words); len(words) == 0 {
		return nil, nil
	}
	if len(words) == 1 {
		phrase = "" // the phrase is the word: no bonus
	}
	for i := range words {
		words[i] = strings.ReplaceAll(words[i], "\x00", "")
	}
	var out []memory.Match
	err := s.read(ctx, fmt.Sprintf("searching session %q", session), func(rows pgx.Rows) error {
		var m memory.Match
		var seq int64
		var raw string
		if err := rows.Scan(&seq, &raw, &m.Tool, &m.Score); err != nil {
			return fmt.Errorf("postgres: searching session %q: %w", session, err)
		}
		msg, err := decodeMessage(raw)
		if err != nil {
			return fmt.Errorf("postgres: session %q, message %d: %w: %w", session, seq, ErrCorrupt, err)
		}
		m.Index, m.Message = int(seq), msg
		out = append(out, m)
		return nil
	}, `WITH q AS (SELECT w, plainto_tsquery('simple', w) AS tq FROM unnest($2::text[]) AS w),
		hits AS (
			SELECT m.seq, m.message, m.role, m.tool_call_id,
				(SELECT count(*) FROM q WHERE m.tsv @@ q.tq OR strpos(m.search, q.w) > 0) AS found,
				(SELECT COALESCE(sum(ts_rank(m.tsv, q.tq)), 0) FROM q) AS rank,
				($3 <> '' AND strpos(m.search, $3) > 0) AS phrase
			FROM {s}.toolcall_messages m WHERE m.session = $1)
		SELECT h.seq, h.message, COALESCE(c.name, ''), (h.found + CASE WHEN h.phrase THEN $4 ELSE 0 END)::int
		FROM hits h
		LEFT JOIN LATERAL (SELECT c.name FROM {s}.toolcall_call_ids c
			WHERE c.session = $1 AND c.id = h.tool_call_id AND c.seq < h.seq ORDER BY c.seq DESC LIMIT 1) c ON h.role = 'tool'
		WHERE h.found > 0
		ORDER BY 4 DESC, h.rank DESC, h.seq DESC
		LIMIT $5`, session, words, phrase, len(words), limit)
	if err != nil {
		return nil, err
	}
	return out, nil
}
