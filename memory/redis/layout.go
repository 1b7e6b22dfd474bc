package redis

import (
	"context"
	"fmt"
	"strconv"
)

// LayoutVersion is the version of the key layout this package writes, kept in the key
// Prefix+"version". New writes it when the key is missing, reads every version up to it,
// and refuses a newer one with ErrLayoutVersion. An upgrade of the layout will be done by
// New, for the keys it wrote, and documented here; the store never deletes a key it did
// not write.
const LayoutVersion = 1

// checkLayout checks, and for a new prefix writes, the layout version.
func (s *Store) checkLayout(ctx context.Context) error {
	key := s.prefix + "version"
	// SET NX: of two processes opening a new prefix at once, both agree on one version.
	if err := s.rdb.SetNX(ctx, key, LayoutVersion, 0).Err(); err != nil {
		return fmt.Errorf("redis: New: writing the layout version %s: %w", key, failed(ctx, err))
	}
	raw, err := s.rdb.Get(ctx, key).Result()
	if err != nil {
		return fmt.Errorf("redis: New: reading the layout version %s: %w", key, failed(ctx, err))
	}
	v, err := strconv.Atoi(raw)
	switch {
	case err != nil || v < 1:
		return fmt.Errorf("%w: the key %s holds %q, not a layout version: is the prefix another application's?", ErrLayoutVersion, key, clip(raw, 40))
	case v > LayoutVersion:
		return fmt.Errorf("%w: the keys under %q have layout version %d, this version of package memory/redis knows versions up to %d: upgrade github.com/toolcall/toolcall/memory/redis", ErrLayoutVersion, s.prefix, v, LayoutVersion)
	}
	return nil
}
