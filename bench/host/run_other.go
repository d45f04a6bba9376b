//go:build !linux

package host

// This file implements Run on systems other than Linux: it refuses.

import (
	"context"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

// Run returns ErrNotSupported: the runner needs Linux's system calls and /proc.
func Run(ctx context.Context, w *workload.Workload, opts Options) (*Result, error) {
	return nil, ErrNotSupported
}

// Release returns "": the runner knows kernel releases of Linux only.
func Release() string { return "" }

// MeasurePipeline returns ErrNotSupported: it reads Linux's /proc.
func MeasurePipeline(ctx context.Context, stages [][]string, limit time.Duration) (*Pipeline, error) {
	return nil, ErrNotSupported
}

// Calibrate returns ErrNotSupported: its probes are Linux system calls.
func Calibrate(ctx context.Context, o CalibrateOptions) (*sim.Profile, Measurements, error) {
	return nil, Measurements{}, ErrNotSupported
}

// CalibrateProgram returns ErrNotSupported: its probes are Linux system calls.
func CalibrateProgram(ctx context.Context, o CalibrateOptions, names []string) (map[string]sim.Figure, Measurements, error) {
	return nil, Measurements{}, ErrNotSupported
}

// CalibrateTimer returns ErrNotSupported: its probes run on Linux's runner.
func CalibrateTimer(ctx context.Context, o CalibrateOptions, switchRefill time.Duration) (map[string]sim.Figure, []string, Measurements, error) {
	return nil, nil, Measurements{}, ErrNotSupported
}
