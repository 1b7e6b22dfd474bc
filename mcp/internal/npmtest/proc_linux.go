package npmtest

import "syscall"

// setDeathSignal has the kernel kill the server when the test binary dies without running
// its cleanups (a panic, go test -timeout).
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
