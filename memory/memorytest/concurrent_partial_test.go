package memorytest_test

import (
	"context"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
)

// unsyncedPartial is an InMemory whose partial loads keep a per-session count in a map
// without a lock, as a store that indexes its sessions' turns lazily on the first partial
// load might: Load with RecentTurns is not safe for concurrent use, which RunSession needs
// (runs of different sessions load at the same time).
type unsyncedPartial struct {
	*memory.InMemory
	loads map[string]int
}

func (s *unsyncedPartial) Load(ctx context.Context, session string, opts agentkit.LoadOptions) (agentkit.History, error) {
	if opts.RecentTurns > 0 {
		s.loads[session]++ // the flaw: no lock
	}
	return s.InMemory.Load(ctx, session, opts)
}

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// The kit's concurrency subtests (ConcurrentSessions, ConcurrentAppendsOneSession) load with
// the zero LoadOptions only, and RecentTurns loads one session at a time: a store whose
// partial-load path is unsynchronized passes the kit, then races (or dies of "concurrent map
// writes") under RunSession with SessionTurns.
func TestKitCatchesUnsynchronizedPartialLoads(t *testing.T) {
	if os.Getenv("MEMORYTEST_UNSYNCED_CHILD") != "" {
		memorytest.Run(t, func(t *testing.T) agentkit.Memory {
			return &unsyncedPartial{InMemory: memory.NewInMemory(), loads: map[string]int{}}
		})
		return
	}
	if !raceEnabled() || testing.Short() {
		t.Skip("needs -race, and runs a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKitCatchesUnsynchronizedPartialLoads$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "MEMORYTEST_UNSYNCED_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the kit passed a store whose Load with RecentTurns is not safe for concurrent use")
	}
	if !strings.Contains(string(out), "DATA RACE") && !strings.Contains(string(out), "concurrent map") {
		t.Errorf("the kit failed the store, but not for its race:\n%s", out)
	}
}
