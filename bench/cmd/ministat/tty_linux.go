package main

// This file implements isTerminal on Linux, where ministat asks the terminal for its width.

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal (isatty) and, if so, its width in columns
// (TIOCGWINSZ).
func isTerminal(f *os.File) tty {
	fd := int(f.Fd())
	if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
		return tty{}
	}
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return tty{ok: true}
	}
	return tty{ok: true, cols: int(ws.Col)}
}
