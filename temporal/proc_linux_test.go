package temporal

import "syscall"

// dieWithParent makes a child process die with the test binary (a SIGKILL of the test
// leaves no dev server or worker behind).
func dieWithParent() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
