//go:build unix && !linux

package npmtest

import "syscall"

func setDeathSignal(*syscall.SysProcAttr) {}
