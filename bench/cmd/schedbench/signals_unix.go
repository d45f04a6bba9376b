//go:build unix

package main

// This file implements raise on Unix.

import (
	"os"
	"syscall"
	"time"
)

// raise sends sig to this process, whose handler for it has been reset, and waits for it to
// take effect.
func raise(sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		_ = syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second)
	}
}
