package redis

import (
	"context"
	"fmt"
	"strconv"

	"github.com/toolcall/toolcall/memory"
)

// LoadSummary returns the summary memory.Fold saved for the session (memory.SummaryStore),
// the zero Summary when there is none.
func (s *Store) LoadSummary(ctx context.Context, session string) (memory.Summary, error) {
	if err := ctx.Err(); err != nil {
		return memory.Summary{}, fmt.Errorf("redis: loading the summary of session %q: %w", session, failed(ctx, err))
	}
	vals, err := s.rdb.HMGet(ctx, s.key(session, "summary"), "text", "folded", "fingerprint").Result()
	if err != nil {
		return memory.Summary{}, fmt.Errorf("redis: loading the summary of session %q: %w", session, failed(ctx, err))
	}
	text, ok1 := vals[0].(string)
	folded, ok2 := vals[1].(string)
	fp, ok3 := vals[2].(string)
	if !ok1 && !ok2 && !ok3 {
		return memory.Summary{}, nil
	}
	sum := memory.Summary{Text: text}
	var err1, err2 error
	sum.Folded, err1 = strconv.Atoi(folded)
	sum.Fingerprint, err2 = strconv.ParseUint(fp, 10, 64)
	if !ok1 || err1 != nil || err2 != nil {
		return memory.Summary{}, fmt.Errorf("redis: the summary of session %q: %w: fields %q", session, ErrCorrupt, vals)
	}
	return sum, nil
}

// SaveSummary replaces the session's summary (memory.SummaryStore): one HSET of its three
// fields.
func (s *Store) SaveSummary(ctx context.Context, session string, sum memory.Summary) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: saving the summary of session %q: %w", session, failed(ctx, err))
	}
	err := s.rdb.HSet(ctx, s.key(session, "summary"),
		"text", sum.Text, "folded", strconv.Itoa(sum.Folded), "fingerprint", strconv.FormatUint(sum.Fingerprint, 10)).Err()
	if err != nil {
		return fmt.Errorf("redis: saving the summary of session %q: %w", session, failed(ctx, err))
	}
	return nil
}
