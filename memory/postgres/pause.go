package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/toolcall/toolcall/agentkit"
)

// Claim records key in the database's ledger (agentkit.Ledger), a table whose primary key is
// the key: one INSERT … ON CONFLICT DO NOTHING, so of any number of claimers — goroutines,
// replicas — exactly one wins. The claim is committed when Claim returns true.
func (s *Store) Claim(ctx context.Context, key string) (bool, error) {
	tag, err := s.exec(ctx, fmt.Sprintf("claiming %q", key), "INSERT INTO {s}.toolcall_claims (key) VALUES ($1) ON CONFLICT (key) DO NOTHING", key)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// SavePause keeps state as the session's pause, replacing any (agentkit.PauseStore).
func (s *Store) SavePause(ctx context.Context, session string, state []byte) error {
	_, err := s.exec(ctx, fmt.Sprintf("saving the pause of session %q", session),
		"INSERT INTO {s}.toolcall_pauses (session, state) VALUES ($1, $2) ON CONFLICT (session) DO UPDATE SET state = EXCLUDED.state",
		session, state)
	return err
}

// LoadPause returns the session's pause (agentkit.PauseStore), or an error wrapping
// agentkit.ErrNoPause.
func (s *Store) LoadPause(ctx context.Context, session string) ([]byte, error) {
	return s.pause(ctx, session, "loading", "SELECT state FROM {s}.toolcall_pauses WHERE session = $1")
}

// TakePause removes the session's pause and returns it (agentkit.PauseStore): one DELETE …
// RETURNING, so of any number of takers exactly one gets it.
func (s *Store) TakePause(ctx context.Context, session string) ([]byte, error) {
	return s.pause(ctx, session, "taking", "DELETE FROM {s}.toolcall_pauses WHERE session = $1 RETURNING state")
}

func (s *Store) pause(ctx context.Context, session, verb, q string) ([]byte, error) {
	var state []byte
	found := false
	err := s.query(ctx, fmt.Sprintf("%s the pause of session %q", verb, session), func(rows pgx.Rows) error {
		found = true
		return rows.Scan(&state)
	}, q, session)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fmt.Errorf("postgres: session %q: %w", session, agentkit.ErrNoPause)
	}
	return state, nil
}
