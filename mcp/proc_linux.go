package mcp

import "syscall"

// setDeathSignal has the kernel kill a server's subprocess when this process dies without
// closing its Client. The signal follows the OS thread that started the subprocess; Go ends
// only threads locked by a goroutine that exits, which Connect never does.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
