//go:build unix

package aimock

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in a process group of its own, so that stopping it reaches
// anything it may spawn, and a signal sent to the test's group (Ctrl-C) is not doubled.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

func terminate(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }

func kill(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
