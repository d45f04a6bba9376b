// Command balance is lesson 10 of the course: how Linux's CFS spreads work over a topology —
// wake-up placement and periodic load balancing over sched domains — and the "Wasted Cores"
// group-construction bug as a switch (package cfs).
//
// Run it with
//
//	go run ./examples/balance
//
// Each CPU balances along its chain of sched domains, from the closest sharing (SMT siblings,
// the cores of one last-level cache) to the loosest (NUMA nodes, the whole machine). At each
// level the domain is divided into groups — the child domains — and a CPU that finds another
// group busier than its own pulls tasks from that group's busiest CPU (load_balance). A CPU
// that goes idle balances at once (newidle_balance); a woken task is placed by
// select_task_rq_fair, usually on an idle CPU that shares the last-level cache with the one it
// last ran on (select_idle_sibling).
//
// Lozi et al. ("The Linux Scheduler: a Decade of Wasted Cores", EuroSys 2016) found that on
// machines where two NUMA nodes are two hops apart, the groups of the machine-wide NUMA domain
// were built once, from CPU 0's point of view, and used by every CPU: a CPU of a node that CPU
// 0's groups lump together with others never sees that its neighbour node is overloaded, and
// idles while tasks wait. The kernel fixed the construction in 4.13; cfs reproduces the bug
// with smp.Params.Groups = smp.GroupsFirstCPU.
//
// The lesson runs two experiments on simulated machines, under CFS (Linux 6.5):
//   - 23 CPU hogs started on CPU 0 of topology.FourLLC (4 last-level caches × 3 cores × 2
//     threads): the balancer spreads them, a hog per CPU and one LLC with a free CPU;
//   - 8 hogs of an application allowed on CPUs 2-5 (NUMA nodes 1 and 2 of topology.FourNode),
//     created on CPU 2 (pinned there, then allowed the four CPUs, so that only load balancing
//     can spread them), with the kernel's group construction and with the bug.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
)

func main() { lesson.Main("balance", run) }

// policy returns CFS v6.5 with the given group construction.
func policy(g smp.GroupConstruction) (*cfs.Scheduler, error) {
	p, err := cfs.Preset("v6.5")
	if err != nil {
		return nil, err
	}
	p.SMP.Groups = g
	return cfs.New(p)
}

// busy runs w on t and returns each CPU's busy fraction over the second half of the run.
func busy(t *topology.Topology, text string, g smp.GroupConstruction) ([]float64, error) {
	w, err := workload.Parse(text)
	if err != nil {
		return nil, err
	}
	p, err := policy(g)
	if err != nil {
		return nil, err
	}
	r, err := sim.Run(sim.Config{Topology: t, Hz: 250, Seed: 1}, p, w, 2*time.Second)
	if err != nil {
		return nil, err
	}
	out := make([]float64, t.NumIDs())
	for c := range t.CPUs().All() {
		out[c] = float64(r.CPUs[c].Busy) / float64(r.End)
	}
	return out, nil
}

func row(w io.Writer, name string, b []float64) {
	fmt.Fprintf(w, "%-24s", name)
	for _, x := range b {
		fmt.Fprintf(w, " %4.0f%%", 100*x)
	}
	fmt.Fprintln(w)
}

// run prints the lesson to w.
func run(w io.Writer) error {
	four := topology.FourLLC()
	fmt.Fprintf(w, "23 hogs started on cpu0 of %v, 2 s, each CPU's busy time:\n", four)
	b, err := busy(four, "thread hog count=23\n\trun forever\nend\n", smp.GroupsPerCPU)
	if err != nil {
		return err
	}
	for _, g := range four.Groups(topology.LLC) {
		var sum float64
		for c := range g.CPUs().All() {
			sum += b[c]
		}
		fmt.Fprintf(w, "  LLC cpus %-12v %4.1f CPUs busy of %d\n", g.CPUs(), sum, g.Count())
	}

	numa := topology.FourNode()
	fmt.Fprintf(w, "\n8 hogs pinned to cpus 2-5 of the four-node machine (nodes: ")
	for i, g := range numa.Groups(topology.Node) {
		if i > 0 {
			fmt.Fprint(w, ", ")
		}
		fmt.Fprint(w, g.CPUs())
	}
	fmt.Fprintln(w, "), 2 s:")
	fmt.Fprintf(w, "%-24s", "cpu")
	for c := range numa.CPUs().All() {
		fmt.Fprintf(w, " %5d", c)
	}
	fmt.Fprintln(w)
	// Created pinned to cpu 2, then allowed cpus 2-5: only load balancing moves them.
	text := "thread app count=8 cpus=2\n\tcpus 2-5\n\trun forever\nend\n"
	for _, g := range []smp.GroupConstruction{smp.GroupsPerCPU, smp.GroupsFirstCPU} {
		b, err := busy(numa, text, g)
		if err != nil {
			return err
		}
		row(w, g.String(), b)
	}
	fmt.Fprintln(w, "\nWith the kernel's construction the app fills its four CPUs. With CPU 0's groups used")
	fmt.Fprintln(w, "everywhere, the balancing CPUs of the other node see one group that is not busier than")
	fmt.Fprintln(w, "theirs: two CPUs the app may use stay idle while its hogs wait (the Wasted Cores bug).")
	return nil
}
