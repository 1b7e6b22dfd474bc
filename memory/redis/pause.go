package redis

import (
	"context"
	"errors"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/toolcall/toolcall/agentkit"
)

// Claim records key in the ledger (agentkit.Ledger): SET NX of Prefix+"claim:"+key, so of
// any number of claimers — goroutines, processes sharing the Redis — exactly one wins.
// Claims never expire.
func (s *Store) Claim(ctx context.Context, key string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("redis: claiming %q: %w", key, failed(ctx, err))
	}
	won, err := s.rdb.SetNX(ctx, s.prefix+"claim:"+key, 1, 0).Result()
	if err != nil {
		return false, fmt.Errorf("redis: claiming %q: %w", key, failed(ctx, err))
	}
	return won, nil
}

// SavePause keeps state as the session's pause, replacing any (agentkit.PauseStore).
func (s *Store) SavePause(ctx context.Context, session string, state []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("redis: saving the pause of session %q: %w", session, failed(ctx, err))
	}
	if err := s.rdb.Set(ctx, s.key(session, "pause"), state, 0).Err(); err != nil {
		return fmt.Errorf("redis: saving the pause of session %q: %w", session, failed(ctx, err))
	}
	return nil
}

// LoadPause returns the session's pause (agentkit.PauseStore).
func (s *Store) LoadPause(ctx context.Context, session string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: the pause of session %q: %w", session, failed(ctx, err))
	}
	return pause(ctx, session, s.rdb.Get(ctx, s.key(session, "pause")))
}

// TakePause removes the session's pause and returns it (agentkit.PauseStore): one GETDEL,
// so of any number of takers exactly one gets it.
func (s *Store) TakePause(ctx context.Context, session string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("redis: taking the pause of session %q: %w", session, failed(ctx, err))
	}
	return pause(ctx, session, s.rdb.GetDel(ctx, s.key(session, "pause")))
}

func pause(ctx context.Context, session string, cmd *goredis.StringCmd) ([]byte, error) {
	state, err := cmd.Bytes()
	switch {
	case errors.Is(err, goredis.Nil):
		return nil, fmt.Errorf("redis: session %q: %w", session, agentkit.ErrNoPause)
	case err != nil:
		return nil, fmt.Errorf("redis: the pause of session %q: %w", session, failed(ctx, err))
	}
	return state, nil
}
