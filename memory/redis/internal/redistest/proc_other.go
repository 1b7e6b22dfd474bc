//go:build !linux

package redistest

import "os/exec"

// dieWithParent does nothing here: only Linux kills a child with its parent. Main and the
// tests' cleanups stop their servers; a test binary killed leaves its server running.
func dieWithParent(cmd *exec.Cmd) {}
