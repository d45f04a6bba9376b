// Package lesson holds the one thing every lesson's main does alike, so that a lesson's source
// is its experiment: each lesson writes its output through a function run(w io.Writer) error,
// which its golden test calls with a buffer, and its main hands that function to [Main].
package lesson

import (
	"fmt"
	"io"
	"os"
)

// Main runs the lesson's run function on standard output. If run returns an error, Main prints
// it to standard error after the lesson's name ("calendar: ...") and exits with status 1.
func Main(name string, run func(w io.Writer) error) {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
