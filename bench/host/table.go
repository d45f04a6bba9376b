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
// The machine is the one the default profile was measured on as topology.Discover reads it,
// so that the model-only table prints the models' figures of a host run there: see
// modelOnlyMachine.
func ModelOnlyTable() CompareOptions {
	return CompareOptions{ModelOnly: true, Topology: modelOnlyMachine(), Release: "6.18.0", Profile: sim.DefaultProfile(), Seed: 1}
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
		if line := otherMachine(cmp.Or(o.Profile, sim.DefaultProfile()), Release(), topo.NumCPUs()); line != "" {
			fmt.Fprintln(w, line)
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

// otherMachine returns a line saying that profile p was measured on another machine than this
// one (kernel release, cpus CPUs), and "" where it was measured on this kind of machine or
// names none (the ideal profile). A virtual machine's costs move with the host it lands on and
// the hypervisor's version, which the guest's kernel release names (the project's CI machine:
// 6.18.44-fc-v1272 one day, fc-v1300 the next, with pipe system calls 2.8 times as fast): the
// models then charge the other machine's costs, and the table's ratios say as much about the
// two machines as about the models.
func otherMachine(p *sim.Profile, release string, cpus int) string {
	m := p.Machine
	if m.Kernel == "" || (m.Kernel == release && (m.CPUs == 0 || m.CPUs == cpus)) {
		return ""
	}
	return fmt.Sprintf("profile %s comes from another machine (kernel %s, %d CPUs) than this one (kernel %s, %d CPUs): the models charge that machine's costs; schedbench calibrate measures this one's",
		p, m.Kernel, m.CPUs, release, cpus)
}

// modelOnlyMachine is the project's CI machine (the ci profile's) as Linux 6.18 sees it and
// topology.Discover reads it: one package of two CPUs that share a last-level cache. Its
// Firecracker guest of fc-v1300 (the ci profile's) reports cache leaves: a 32 MB L3 shared by
// both vCPUs (sysfs cpu0/cache/index3 shared_cpu_list 0-1), so the kernel's CPUs match_llc and
// it builds an SD_SHARE_LLC domain over both (cpus_share_cache true). The guest of fc-v1272
// before it reported none, and the machine had no LLC of two. It matters to wake-ups: on two CPUs
// sharing an LLC select_idle_sibling takes an idle target, else the wakee's idle previous CPU,
// else any idle CPU of the LLC (the host's perf bench sched pipe, traced, puts a woken partner
// back on its idle previous vCPU); with an LLC of one CPU, wake_wide holds as soon as waker and
// wakee have each switched wakee once, and select_idle_sibling, with no sd_llc to scan, keeps
// the wakee on the CPU wake_affine (or wake_wide) chose, idle or not.
func modelOnlyMachine() *topology.Topology {
	t, err := topology.New(topology.Spec{Items: []topology.Item{{Level: topology.Package, Count: 1,
		Items: []topology.Item{{Level: topology.Node, Count: 1, Items: []topology.Item{{Level: topology.LLC, Count: 1,
			Items: []topology.Item{{CPU: true, Count: 2}}}}}}}}})
	if err != nil {
		panic("host: " + err.Error())
	}
	return t
}
