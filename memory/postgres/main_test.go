package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolcall/toolcall/memory/postgres"
	"github.com/toolcall/toolcall/memory/postgres/internal/pgtest"
)

// One PostgreSQL server for the whole test binary (pgtest), a database for each test.
func TestMain(m *testing.M) { pgtest.Main(m) }

// newPool returns a pool on the database at url, closed when t ends.
func newPool(t testing.TB, url string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// openStore opens a Store on a new database of its own.
func openStore(t testing.TB, opts *postgres.Options) *postgres.Store {
	t.Helper()
	return openOn(t, pgtest.Database(t), opts)
}

// openOn opens a Store, with a pool of its own (a process of its own), on the database at url.
func openOn(t testing.TB, url string, opts *postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), newPool(t, url, 0), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}
