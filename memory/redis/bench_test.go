package redis_test

import (
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/memorytest"
)

// BenchmarkStore is the stores' common benchmark (BENCHMARKS.md), against the redis-server
// of the test binary on 127.0.0.1 (no persistence: --save ”, --appendonly no).
func BenchmarkStore(b *testing.B) {
	memorytest.Benchmark(b, func(b *testing.B) agentkit.Memory {
		s, _ := newStore(b, nil)
		return s
	})
}
