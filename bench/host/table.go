package host

// This file implements the model-vs-host table: the experiments README's "Model vs host" reports,
// run and written by examples/hostcompare and schedbench host -experiments alike.

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// TableExperiments returns the throughput experiments of the model-vs-host table, for CPUs a
// (seed 000's tar) and b (every other thread, pinned): seed 000's modelled pipeline beside a
// nice 0, a nice 19 and a SCHED_IDLE hog; with dir not "", the real tar cf - dir | gzip beside
// the same hogs; and seed 000's nice 0 vs nice 19 split over one second; each with the goal
// GoalThroughput. LatencyExperiments are the table's rows on time.
func TableExperiments(a, b int, dir string) []Experiment {
	c := Seed000Costs
	exps := []Experiment{
		Seed000Experiment(c, HogNice0, a, b, "2.02"),
		Seed000Experiment(c, HogNice19, a, b, "1.02"),
		Seed000Experiment(c, HogIdle, a, b, "1.01"),
	}
	if dir != "" {
		for _, h := range []struct {
			hog Hog
			rep string
		}{{HogNice0, "2.02"}, {HogNice19, "1.02"}, {HogIdle, "1.01"}} {
			exps = append(exps, Seed000RealExperiment(dir, c, h.hog, a, b, time.Minute, h.rep))
		}
	}
	exps = append(exps, NiceSplitExperiment(b, time.Second))
	for i := range exps {
		exps[i].Goal = GoalThroughput
	}
	return exps
}

// ModelOnlyTable returns the CompareOptions of the table's model-only form, the same bytes on
// every machine: the models' figures alone, on a simulated machine of two CPUs, the nearest
// preset chosen for Linux 6.18 (the kernel README's table was measured on), under the default
// profile (sim.DefaultProfile), whose costs are drawn from seed 1 (schedbench's default -seed).
func ModelOnlyTable() CompareOptions {
	return CompareOptions{ModelOnly: true, Topology: topology.Uniform(1, 1, 1, 2, 1), Release: "6.18.0", Profile: sim.DefaultProfile(), Seed: 1}
}

// WriteTable runs TableExperiments (with dir) and LatencyExperiments (with o.Profile, or
// sim.DefaultProfile) under o on the first and last CPU of o.Topology and writes the table
// (WriteRows). With o.Topology nil it runs on this machine's (topology.Discover) and first writes
// a line naming the kernel, the CPUs, the host runs per row and the weight of their parent
// group.
func WriteTable(ctx context.Context, w io.Writer, o CompareOptions, dir string) error {
	p := cmp.Or(o.Profile, sim.DefaultProfile())
	return WriteExperiments(ctx, w, o, func(a, b int) []Experiment {
		return append(TableExperiments(a, b, dir), LatencyExperiments(p, b)...)
	})
}

// WriteExperiments is WriteTable with the experiments exps returns for CPUs a and b instead of
// TableExperiments'.
func WriteExperiments(ctx context.Context, w io.Writer, o CompareOptions, exps func(a, b int) []Experiment) error {
	topo := o.Topology
	if topo == nil {
		var err error
		if topo, err = topology.Discover(); err != nil {
			return fmt.Errorf("host: %w", err)
		}
		o.Topology = topo
		fmt.Fprintf(w, "kernel %s, %d CPUs, %d host runs per row, parent group weight %d\n", Release(), topo.NumCPUs(),
			cmp.Or(o.Reps, 3), cmp.Or(o.Weight, 100))
		if quirks := NonUpstreamSchedSysctls(); len(quirks) > 0 {
			fmt.Fprintf(w, "scheduler sysctls upstream Linux does not have (a patched scheduler the models do not contain): %s\n",
				strings.Join(quirks, ", "))
		}
	}
	cpus := topo.CPUs()
	a, _ := cpus.First()
	b, _ := cpus.Last()
	rows, err := Compare(ctx, exps(int(a), int(b)), o)
	if err != nil {
		return err
	}
	return WriteRows(w, rows)
}
