package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/toolcall/toolcall/agentkit"
)

var (
	_ agentkit.Ledger     = (*Store)(nil)
	_ agentkit.PauseStore = (*Store)(nil)
)

// Claim records key in the database's ledger (agentkit.Ledger), a table whose primary key is
// the key: one INSERT, so of any number of claimers — goroutines, processes sharing the file
// — exactly one wins. The claim is on disk when Claim returns true.
func (s *Store) Claim(ctx context.Context, key string) (bool, error) {
	if err := s.acquireWrite(ctx); err != nil {
		return false, fmt.Errorf("sqlite: claiming %q: %w", key, err)
	}
	defer s.releaseWrite()
	res, err := s.db.ExecContext(ctx, "INSERT INTO claims (key, claimed) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", key, time.Now().UnixMilli())
	if err != nil {
		return false, fmt.Errorf("sqlite: claiming %q: %w", key, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: claiming %q: %w", key, err)
	}
	return n == 1, nil
}

// SavePause keeps state as the session's pause, replacing any (agentkit.PauseStore).
func (s *Store) SavePause(ctx context.Context, session string, state []byte) error {
	if err := s.acquireWrite(ctx); err != nil {
		return fmt.Errorf("sqlite: saving the pause of session %q: %w", session, err)
	}
	defer s.releaseWrite()
	if _, err := s.db.ExecContext(ctx, "INSERT OR REPLACE INTO pauses (session, state) VALUES (?, ?)", session, state); err != nil {
		return fmt.Errorf("sqlite: saving the pause of session %q: %w", session, err)
	}
	return nil
}

// LoadPause returns the session's pause (agentkit.PauseStore).
func (s *Store) LoadPause(ctx context.Context, session string) ([]byte, error) {
	return s.pause(session, s.db.QueryRowContext(ctx, "SELECT state FROM pauses WHERE session = ?", session))
}

// TakePause removes the session's pause and returns it (agentkit.PauseStore): one DELETE …
// RETURNING, so of any number of takers exactly one gets it.
func (s *Store) TakePause(ctx context.Context, session string) ([]byte, error) {
	if err := s.acquireWrite(ctx); err != nil {
		return nil, fmt.Errorf("sqlite: taking the pause of session %q: %w", session, err)
	}
	defer s.releaseWrite()
	return s.pause(session, s.db.QueryRowContext(ctx, "DELETE FROM pauses WHERE session = ? RETURNING state", session))
}

func (s *Store) pause(session string, row *sql.Row) ([]byte, error) {
	var state []byte
	err := row.Scan(&state)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("sqlite: session %q: %w", session, agentkit.ErrNoPause)
	case err != nil:
		return nil, fmt.Errorf("sqlite: the pause of session %q: %w", session, err)
	}
	return state, nil
}
