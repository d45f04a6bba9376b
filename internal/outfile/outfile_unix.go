//go:build unix

package outfile

// This file implements the parts of outfile.go that read a file's owner and links and open
// devices and FIFOs, on Unix.

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// links returns the number of hard links of the file fi describes.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// chownLike gives f the owner and group of the file old describes, and reports whether it could.
func chownLike(f *os.File, old fs.FileInfo) bool {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	if fi, err := f.Stat(); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid == want.Uid && st.Gid == want.Gid {
			return true
		}
	}
	return f.Chown(int(want.Uid), int(want.Gid)) == nil
}

// openThrough opens the character device or FIFO target for writing. A FIFO is opened without
// waiting for a reader: with none, the open fails at once (ENXIO) instead of blocking the command
// before it has done anything; the file stays non-blocking, so that its writes wait in Go's
// poller, where closing it ends them.
func openThrough(target string, fi fs.FileInfo) (*os.File, error) {
	if fi.Mode()&fs.ModeNamedPipe != 0 {
		f, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			return nil, errors.New("a FIFO that no process has open for reading")
		}
		if err != nil {
			return nil, unwrap(err)
		}
		return f, nil
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil, unwrap(err)
	}
	return f, nil
}

// processExists reports whether a process with the given PID exists (it may belong to another
// user).
func processExists(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
