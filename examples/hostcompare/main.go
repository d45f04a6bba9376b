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
	"time"

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
		err = run(ctx, os.Stdout, host.CompareOptions{ModelOnly: true, Topology: topology.Uniform(1, 1, 1, 2, 1),
			Release: "6.18.0"}, "")
	default:
		err = run(ctx, os.Stdout, host.CompareOptions{Reps: *reps, Weight: *weight}, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostcompare:", err)
		os.Exit(1)
	}
}

// experiments returns the table's experiments for CPUs a (tar) and b (everything pinned).
func experiments(a, b int, dir string) []host.Experiment {
	c := host.Seed000Costs
	exps := []host.Experiment{
		host.Seed000Experiment(c, host.HogNice0, a, b, "2.02"),
		host.Seed000Experiment(c, host.HogNice19, a, b, "1.02"),
		host.Seed000Experiment(c, host.HogIdle, a, b, "1.01"),
	}
	if dir != "" {
		for _, h := range []struct {
			hog host.Hog
			rep string
		}{{host.HogNice0, "2.02"}, {host.HogNice19, "1.02"}, {host.HogIdle, "1.01"}} {
			exps = append(exps, host.Seed000RealExperiment(dir, c, h.hog, a, b, time.Minute, h.rep))
		}
	}
	return append(exps,
		host.NiceSplitExperiment(b, time.Second),
		host.Seed004Experiment(b, 500, 50, true),
		host.Seed004Experiment(b, 500, 99, true),
		host.Seed004Experiment(b, 500, 99, false),
		host.ProbeAloneExperiment(b, 500, 99),
	)
}

func run(ctx context.Context, w io.Writer, o host.CompareOptions, dir string) error {
	topo := o.Topology
	if topo == nil {
		var err error
		if topo, err = topology.Discover(); err != nil {
			return err
		}
		o.Topology = topo
		fmt.Fprintf(w, "kernel %s, %d CPUs, %d host runs per row, parent group weight %d\n", host.Release(), topo.NumCPUs(), o.Reps, o.Weight)
	}
	cpus := topo.CPUs()
	a, _ := cpus.First()
	b, _ := cpus.Last()
	rows, err := host.Compare(ctx, experiments(int(a), int(b), dir), o)
	if err != nil {
		return err
	}
	return host.WriteRows(w, rows)
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
