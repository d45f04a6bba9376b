//go:build !linux

package trace

// This file implements Recording where there is no tracefs: every start fails.

import (
	"fmt"
	"io"
	"runtime"
)

// A Recording records the kernel's scheduler events into a private tracefs instance; tracefs
// exists on Linux only, and elsewhere StartRecording fails.
type Recording struct{}

// StartRecording returns ErrNoTracefs: tracefs is Linux's.
func StartRecording(o *RecordOptions) (*Recording, error) {
	return nil, fmt.Errorf("%w: %s has no tracefs", ErrNoTracefs, runtime.GOOS)
}

// Instance returns "".
func (r *Recording) Instance() string { return "" }

// Stop does nothing.
func (r *Recording) Stop() error { return nil }

// WriteTo writes nothing.
func (r *Recording) WriteTo(w io.Writer, what string) (RecordStats, error) { return RecordStats{}, nil }

// Close does nothing.
func (r *Recording) Close() error { return nil }
