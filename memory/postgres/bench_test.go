package postgres_test

import (
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/memorytest"
)

// BenchmarkStore is memorytest's benchmark of every store, for BENCHMARKS.md beside SQLite
// and InMemory: appends of a turn to 1 and to 8 sessions at once, and the load of a
// 1,000-message session, against the PostgreSQL server the tests start (on 127.0.0.1, with
// PostgreSQL's default durability: fsync on, synchronous_commit on, so every Append is on
// disk when it returns, as SQLite's default synchronous=FULL).
func BenchmarkStore(b *testing.B) {
	memorytest.Benchmark(b, func(b *testing.B) agentkit.Memory { return openStore(b, nil) })
}
