package redistest

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the server killed with the test binary, even when the binary is killed
// or a test panics.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
