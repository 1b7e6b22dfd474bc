//go:build unix && !linux

package aimock

import "syscall"

func setDeathSignal(*syscall.SysProcAttr) {}
