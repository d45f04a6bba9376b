// Command idlegroup is lesson 8 of the course: SCHED_IDLE tasks and idle control groups in
// Linux's CFS, and the tick-preemption change of seed 004.
//
// Run it with
//
//	go run ./examples/idlegroup
//
// SCHED_IDLE is not a separate class below the normal one: an idle task is a fair task with
// the smallest weight there is, 3 against nice 0's 1024 (about 1/341), so it soaks up the CPU
// time nobody else wants but is never starved. A cgroup with cpu.idle = 1 is the same for a
// whole group: its entity on the parent's queue weighs 3, whatever runs inside. Two more rules
// make idle entities get out of the way: a waking normal task preempts a running idle one
// at once (check_preempt_wakeup), and a CPU running only idle tasks counts as idle for
// wake-up placement (sched_idle_cpu).
//
// What they do not get is a shorter slice when a normal task is merely waiting. Seed 004's patch
// (FavorNonIdleTick in package cfs) changes the tick's check_preempt_tick: when the running
// entity is not idle and the leftmost waiting one is, do not preempt the running one for it
// early. The patch was measured on schbench beside an idle cgroup running hackbench-like load;
// its effect is in the tail (99.9th percentile).
//
// The lesson runs, on one simulated CPU, four schbench-like workers (each wakes every 10 ms and
// runs for an exponential 1.5 ms on average: 60% of the CPU between them; their periods are
// staggered, 2.5 ms apart) in a normal group,
// beside four CPU hogs that are, in turn: normal tasks at nice 0, SCHED_IDLE tasks, and normal
// tasks inside a cpu.idle group; under CFS v6.5 with and without seed 004's option. It prints
// the workers' wake-up latency percentiles and the hogs' share.
package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
)

const probe = `
group online
group offline idle

thread worker count=4 group=online
	every 10ms phase=stagger
		run exp(1500us)
	end
end
`

var hogs = []struct{ name, text string }{
	{"nice 0 hogs", "thread hog count=4 group=online\n\trun forever\nend\n"},
	{"SCHED_IDLE hogs", "thread hog count=4 class=idle group=online\n\trun forever\nend\n"},
	{"hogs in a cpu.idle group", "thread hog count=4 group=offline\n\trun forever\nend\n"},
}

func main() { lesson.Main("idlegroup", run) }

// run prints the lesson to w.
func run(w io.Writer) error {
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000, Seed: 1}
	fmt.Fprintln(w, "one CPU, 30 s: the workers' wake-up latency (µs, all four pooled) and the four hogs' share")
	fmt.Fprintf(w, "%-26s %-28s %7s %7s %7s %7s %8s\n", "hogs", "policy", "p50", "p99", "p99.9", "max", "hogs")
	for _, h := range hogs {
		wl, err := workload.Parse(probe + h.text)
		if err != nil {
			return err
		}
		for _, name := range []string{"cfs:v6.5", "cfs:v6.5+favor-nonidle-tick"} {
			p, err := presets.New(name)
			if err != nil {
				return err
			}
			r, err := sim.Run(cfg, p, wl, 30*time.Second)
			if err != nil {
				return err
			}
			var lat []int64
			for i := range r.Threads {
				if l, ok := r.Threads[i].Wakeup.Exact(); ok && strings.HasPrefix(r.Threads[i].Name, "worker.") {
					lat = append(lat, l...)
				}
			}
			slices.Sort(lat)
			fmt.Fprintf(w, "%-26s %-28s", h.name, name)
			for _, q := range []float64{50, 99, 99.9, 100} {
				d, _ := sim.Percentile(lat, q)
				fmt.Fprintf(w, " %7.0f", float64(d)/1e3)
			}
			share := 0.0
			for i := range r.Threads {
				if strings.HasPrefix(r.Threads[i].Name, "hog.") {
					share += r.Threads[i].Share()
				}
			}
			fmt.Fprintf(w, " %7.1f%%\n", 100*share)
		}
	}
	fmt.Fprintln(w, "\nNormal hogs weigh as much as the workers, so they take their weight's share and the")
	fmt.Fprintln(w, "workers, which need 60% of the CPU, wait behind their slices. Idle hogs, as tasks or as a")
	fmt.Fprintln(w, "group, take only what the workers leave; the workers' remaining latency is mostly their")
	fmt.Fprintln(w, "own queueing behind each other (their phases are staggered, but their runs are random).")
	fmt.Fprintln(w, "Seed 004's option changes the tail a little at most here: its effect was measured on a")
	fmt.Fprintln(w, "24-CPU machine under heavy load (see bench/scenario's seed004-idlegroup).")
	return nil
}
