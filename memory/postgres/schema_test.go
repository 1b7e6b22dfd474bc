package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolcall/toolcall/memory/postgres"
	"github.com/toolcall/toolcall/memory/postgres/internal/pgtest"
)

// tables lists the store's tables in schema, with the version table's content.
func tables(t *testing.T, url, schema string) (names []string, versions []int) {
	t.Helper()
	ctx := context.Background()
	pool := newPool(t, url, 1)
	rows, err := pool.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", schema)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	rows.Close()
	if len(names) == 0 {
		return nil, nil
	}
	rows, err = pool.Query(ctx, "SELECT version FROM "+`"`+schema+`"`+".toolcall_schema")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		versions = append(versions, v)
	}
	return names, versions
}

var allTables = []string{"toolcall_call_ids", "toolcall_claims", "toolcall_leases", "toolcall_messages",
	"toolcall_pauses", "toolcall_schema", "toolcall_sessions", "toolcall_summaries"}

// An empty database is migrated to the current version; opening it again changes nothing.
func TestMigrateEmptyDatabase(t *testing.T) {
	url := pgtest.Database(t)
	for range 2 {
		openOn(t, url, nil)
		names, versions := tables(t, url, "public")
		if diff := cmp.Diff(allTables, names); diff != "" {
			t.Errorf("tables (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]int{postgres.SchemaVersion}, versions); diff != "" {
			t.Errorf("toolcall_schema (-want +got):\n%s", diff)
		}
	}
}

// Processes opening one new database at once migrate it once (the advisory lock): every
// Open succeeds, and the version table has one row.
func TestMigrateConcurrently(t *testing.T) {
	url := pgtest.Database(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		pool := newPool(t, url, 1)
		wg.Go(func() { _, errs[i] = postgres.Open(context.Background(), pool, &postgres.Options{Schema: "shared"}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
		}
	}
	if _, versions := tables(t, url, "shared"); !cmp.Equal(versions, []int{postgres.SchemaVersion}) {
		t.Errorf("toolcall_schema = %v, want one row of version %d", versions, postgres.SchemaVersion)
	}
}

// A database of a newer version is refused with a clear error, and left as it is.
func TestNewerSchemaRefused(t *testing.T) {
	url := pgtest.Database(t)
	openOn(t, url, nil)
	ctx := context.Background()
	if _, err := newPool(t, url, 1).Exec(ctx, "UPDATE toolcall_schema SET version = 99"); err != nil {
		t.Fatal(err)
	}
	_, err := postgres.Open(ctx, newPool(t, url, 1), nil)
	if !errors.Is(err, postgres.ErrSchemaVersion) {
		t.Fatalf("Open of a newer schema = %v, want ErrSchemaVersion", err)
	}
	for _, want := range []string{"version 99", "upgrade"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	names, versions := tables(t, url, "public")
	if !cmp.Equal(names, allTables) || !cmp.Equal(versions, []int{99}) {
		t.Errorf("after the refusal: tables %v, versions %v; want them untouched", names, versions)
	}
}

// Open with a canceled context fails with its error and creates nothing.
func TestOpenCanceled(t *testing.T) {
	url := pgtest.Database(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := postgres.Open(ctx, newPool(t, url, 1), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Open with a canceled context = %v, want context.Canceled", err)
	}
	if names, _ := tables(t, url, "public"); len(names) != 0 {
		t.Errorf("Open with a canceled context created %v", names)
	}
}
