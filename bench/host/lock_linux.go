// This file implements the machine-wide lock that keeps two measurements of the real kernel
// from running at the same time.

package host

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"
)

// hostLock names the lock: a socket in Linux's abstract namespace, which exists only while a
// process holds it open and so never outlives a runner, whatever ends it (even SIGKILL).
const hostLock = "@schedkit-host-runner"

// lockHost waits until no other runner on the machine (in this network namespace) is
// measuring, then holds the lock until the returned function is called. Two runners at once
// would compete for the CPUs they pin their threads to and measure each other: two test
// binaries of `go test ./...` (this package's and the command line's) do exactly that. It
// returns ctx's error if ctx ends first.
func lockHost(ctx context.Context) (func(), error) {
	for {
		l, err := net.Listen("unix", hostLock)
		if err == nil {
			return func() { l.Close() }, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
