//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// readsStderr reports whether a Command server's stderr is read (see stderrLog): on unix,
// closing the pipe's read end ends a read in progress, so that Close never waits for a
// process that escaped the group and holds the pipe.
const readsStderr = true

// setProcessGroup puts a server's subprocess in a process group of its own, so that
// closing it reaches anything it started (npx starts node), and so that a signal sent to
// the application's group (Ctrl-C) reaches the application, which closes its servers.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup kills what is left of the process group of cmd, once its process is gone.
func killGroup(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
