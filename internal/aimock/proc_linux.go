package aimock

import "syscall"

// setDeathSignal has the kernel kill the server when the test binary dies without running
// its cleanups (a panic, go test -timeout). The signal follows the OS thread that started the
// process; Go only ends threads locked by a goroutine that exits, which Start never does.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
