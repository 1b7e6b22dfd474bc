//go:build !linux

package temporal

import "syscall"

func dieWithParent() *syscall.SysProcAttr { return nil }
