// Command vruntime is lesson 7 of the course: how Linux's CFS shares a CPU by weight, with the
// kernel's own weight table and fixed-point arithmetic (package cfs).
//
// Run it with
//
//	go run ./examples/vruntime
//
// Every task has a weight that follows from its nice level (sched_prio_to_weight, cfs.Weight):
// 1024 at nice 0, and each nice level about 1.25 times lighter than the one before, so that one
// level is about a 10% difference in CPU time between two competing tasks. Every task also has
// a virtual runtime: when it runs for d nanoseconds its vruntime grows by d·1024/weight
// (calc_delta_fair, cfs.CalcDeltaFair, which the kernel computes with a precomputed inverse
// 2^32/weight and shifts rather than a division). CFS always runs the task with the smallest
// vruntime, the leftmost node of a red-black tree (timeline.Timeline). A heavy task's vruntime
// grows slowly, so it is leftmost more often: over time every task gets CPU in proportion to its
// weight, and the vruntimes of the tasks that keep running stay close together.
//
// The lesson prints the weights and what 10 ms of CPU costs in vruntime at a few nice levels,
// then runs three CPU hogs at nice 0, 1 and 5 on one simulated CPU under CFS (Linux 6.5) and
// compares their shares with their weights.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
)

const text = `
thread nice0
	run forever
end

thread nice1 nice=1
	run forever
end

thread nice5 nice=5
	run forever
end
`

func main() { lesson.Main("vruntime", run) }

// run prints the lesson to w.
func run(w io.Writer) error {
	fmt.Fprintln(w, "nice  weight  vruntime for 10 ms of CPU")
	for _, nice := range []int{-20, -5, -1, 0, 1, 5, 19} {
		lw := cfs.TaskLoad(cfs.Normal, nice)
		d := cfs.CalcDeltaFair(cfs.DeltaWMult, uint64(10*time.Millisecond), lw)
		fmt.Fprintf(w, "%4d  %6d  %12.3f ms\n", nice, cfs.Weight(nice), float64(d)/1e6)
	}
	idle := cfs.TaskLoad(cfs.Idle, 0)
	fmt.Fprintf(w, "SCHED_IDLE weighs %d: 10 ms of CPU is %.1f ms of vruntime\n", cfs.ScaleLoadDown(idle.Weight),
		float64(cfs.CalcDeltaFair(cfs.DeltaWMult, uint64(10*time.Millisecond), idle))/1e6)

	wl, err := workload.Parse(text)
	if err != nil {
		return err
	}
	p, err := presets.New("cfs:v6.5")
	if err != nil {
		return err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000, Seed: 1}
	r, err := sim.Run(cfg, p, wl, 30*time.Second)
	if err != nil {
		return err
	}
	total := cfs.Weight(0) + cfs.Weight(1) + cfs.Weight(5)
	fmt.Fprintf(w, "\nthree hogs on one CPU for 30 s under CFS v6.5 (weights %d + %d + %d = %d):\n",
		cfs.Weight(0), cfs.Weight(1), cfs.Weight(5), total)
	fmt.Fprintln(w, "thread  share   weight/total")
	for _, nice := range []int{0, 1, 5} {
		t, _ := r.Thread(fmt.Sprintf("nice%d", nice))
		fmt.Fprintf(w, "nice%-3d %5.1f%%  %5.1f%%\n", nice, 100*t.Share(), 100*float64(cfs.Weight(nice))/float64(total))
	}
	fmt.Fprintln(w, "\nThe shares follow the weights. Nothing here is a priority in the 4BSD or ULE sense: a")
	fmt.Fprintln(w, "nice 5 task never waits for the nice 0 one to finish, it only runs less of each period.")
	return nil
}
