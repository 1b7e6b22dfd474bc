//go:build !unix

package mcp

import "os/exec"

// readsStderr is false: there, a read of a pipe in progress holds its handle open past
// Close, and a grandchild holding the pipe would hold up Close. Stderr is discarded.
const readsStderr = false

func setProcessGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
