package memory_test

import (
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
)

func TestInMemoryConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return memory.NewInMemory() })
}

func TestInMemoryZeroValueConformance(t *testing.T) {
	memorytest.Run(t, func(t *testing.T) agentkit.Memory { return &memory.InMemory{} })
}

func BenchmarkStore(b *testing.B) {
	memorytest.Benchmark(b, func(*testing.B) agentkit.Memory { return memory.NewInMemory() })
}
