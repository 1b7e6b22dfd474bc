//go:build unix

package npmtest

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts a server in a process group of its own, so that stopping it reaches
// anything it spawns.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
