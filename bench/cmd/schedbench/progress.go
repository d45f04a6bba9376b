package main

// This file implements the progress bar: runs done out of runs to do, with an estimate of the
// time left, on stderr while it is a terminal.

import (
	"io"

	"github.com/schollz/progressbar/v3"
)

// newProgress returns a function to call after each finished run, and one to call at the end.
// The bar is drawn only when on is true (stderr is a terminal and -q was not given).
func newProgress(w io.Writer, on bool, total int, what string) (step func(done, total int), finish func()) {
	if !on || total < 1 {
		return func(int, int) {}, func() {}
	}
	bar := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100e6),
		progressbar.OptionFullWidth(),
	)
	_ = bar.RenderBlank()
	return func(done, _ int) { _ = bar.Set(done) }, func() { _ = bar.Finish() }
}
