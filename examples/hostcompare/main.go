// Command hostcompare puts the real kernel beside the model: it runs seed 000's pipeline beside
// a pinned hog (nice 0, nice 19, SCHED_IDLE), seed 000's nice 0 vs nice 19 split and seed 004's
// probe beside an idle group as real threads on this machine (bench/host), the same workloads in
// the simulator under the CFS/EEVDF preset nearest the running kernel and the other policies, and
// prints the table: the host's median and range over the repetitions, the models' figures, the
// ratio, a verdict on the host's range and a t test of the host's runs against the model's.
//
// Usage:
//
//	hostcompare [-reps 3] [-weight 100] [-dir DIR]  # the table (as root; DIR: real tar|gzip rows)
//	hostcompare -calibrate DIR         # measure tar cf - DIR | gzip, the calibration source
//	hostcompare -model-only            # the models' figures only, on a 2-CPU machine
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/topology"
)

func main() {
	reps := flag.Int("reps", 3, "host repetitions per experiment")
	weight := flag.Uint64("weight", 100, "cpu.weight of the host runs' parent group against the rest of the machine (1-10000)")
	dir := flag.String("dir", "", "a directory for the real tar | gzip rows (none: the rows are left out)")
	calibrate := flag.String("calibrate", "", "measure tar cf - `DIR` | gzip and print its per-stage costs")
	modelOnly := flag.Bool("model-only", false, "print the models' figures only, on a simulated 2-CPU machine")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch {
	case *calibrate != "":
		err = calibrateCmd(ctx, os.Stdout, *calibrate)
	case *modelOnly:
		err = host.WriteTable(ctx, os.Stdout, host.ModelOnlyTable(), "")
	default:
		err = host.WriteTable(ctx, os.Stdout, host.CompareOptions{Reps: *reps, Weight: *weight}, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostcompare:", err)
		os.Exit(1)
	}
}

func calibrateCmd(ctx context.Context, w io.Writer, dir string) error {
	topo, err := topology.Discover()
	if err != nil {
		return err
	}
	cpus := topo.CPUs()
	b, _ := cpus.Last()
	p, err := host.MeasurePipeline(ctx, [][]string{{"tar", "cf", "-", "-C", dir, "."},
		{"taskset", "-c", fmt.Sprint(int(b)), "gzip"}}, host.MaxLimit)
	if err != nil {
		return err
	}
	if err := p.Write(w); err != nil {
		return err
	}
	tar, gz := &p.Stages[0], &p.Stages[1]
	block := tar.WriteBlock()
	_, err = fmt.Fprintf(w, "costs: tar %v per %d-byte record, gzip %v per record, pipe %d records\n",
		tar.CPUPerWrite(), block, gz.CPUPer(block), p.PipeSize/max(block, 1))
	return err
}
