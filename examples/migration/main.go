// Command migration is lesson 11 of the course: ULE's per-CPU queues against 4BSD's global one,
// told with Steve Kargl's 2011 report that ULE made a numerical job up to 2.8 times slower
// (seed 001).
//
// Run it with
//
//	go run ./examples/migration
//
// 4BSD keeps one run queue for the whole machine: whichever CPU becomes free takes the best
// thread, so N CPU-bound threads on fewer CPUs are time-sliced across all of them and advance
// at the same rate. ULE keeps a queue per CPU and moves threads only when a CPU goes idle
// (it steals), when the periodic balancer runs, or at wake-up (sched_pickcpu). A CPU-bound
// thread never wakes up, and at the end of its slice goes back on its own CPU's queue; with 5
// threads on 4 CPUs one CPU holds two of them for long stretches, and they get half a CPU each
// while the other three run at full speed. For independent jobs that only reorders who finishes
// when; for the cooperating ranks of one program that meet at a barrier (Kargl's MPI job,
// timed on its master), the slowest rank sets the pace and the whole job waits for it.
//
// The lesson runs such a job on four simulated CPUs: N = 4..8 ranks share 32 s of CPU work
// equally and meet at a barrier 8 times (a master collects a message from each rank and sends
// each one on). It prints the job's time and how many times its threads migrated, under the
// 2011 ULE (freebsd9), today's ULE (main), 4BSD of 2011 and Linux's CFS, beside Kargl's
// figures. Read it for the direction, not the size: in the model ULE is slower than 4BSD at
// every N that is not a multiple of 4 and moves its threads an order of magnitude less often;
// Kargl measured ULE 1.5-2.5 times slower, at N = 8 too, which this simple job does not
// reproduce (his program's communication and the 2008-era balancer's quirks are modelled in more
// detail by bench/scenario's seed001-kargl).
package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
)

// job returns the workload of n ranks doing total CPU work between barriers times barriers.
func job(n, barriers int, total time.Duration) string {
	work := total / time.Duration(n*barriers)
	var b strings.Builder
	fmt.Fprintf(&b, "pipe done cap=%d\n", n)
	for i := range n {
		fmt.Fprintf(&b, "pipe go%d cap=1\n", i)
	}
	// The master waits for every rank, then releases each: a barrier.
	fmt.Fprintf(&b, "\nthread master\n\trepeat %d\n\t\trepeat %d\n\t\t\trecv done\n\t\tend\n", barriers, n)
	for i := range n {
		fmt.Fprintf(&b, "\t\tsend go%d\n", i)
	}
	b.WriteString("\tend\nend\n")
	for i := range n {
		fmt.Fprintf(&b, "\nthread rank%d\n\trepeat %d\n\t\trun %dus\n\t\tsend done\n\t\trecv go%d\n\tend\nend\n", i, barriers, work.Microseconds(), i)
	}
	return b.String()
}

func main() { lesson.Main("migration", run) }

// run prints the lesson to w.
func run(w io.Writer) error {
	policies := []string{"ule:freebsd9", "ule:main", "bsd4:freebsd9", "cfs:v6.5"}
	kargl := map[int][2]string{4: {"223.27", "221.76"}, 5: {"404.35", "270.68"}, 6: {"627.56", "247.23"}, 7: {"475.53", "285.78"}, 8: {"429.45", "223.64"}}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 4, 1), Hz: 1000, StatHz: 127, Seed: 1}
	fmt.Fprintln(w, "4 CPUs, 32 s of CPU work shared by N ranks, 8 barriers: the job's time (s) and migrations")
	fmt.Fprintf(w, "%2s", "N")
	for _, p := range policies {
		fmt.Fprintf(w, "  %-20s", p)
	}
	fmt.Fprintln(w, "  Kargl: ULE / 4BSD (s)")
	for n := 4; n <= 8; n++ {
		wl, err := workload.Parse(job(n, 8, 32*time.Second))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%2d", n)
		for _, name := range policies {
			p, err := presets.New(name)
			if err != nil {
				return err
			}
			r, err := sim.Run(cfg, p, wl, 120*time.Second)
			if err != nil {
				return err
			}
			var m int64
			for i := range r.Threads {
				m += r.Threads[i].Migrations
			}
			fmt.Fprintf(w, "  %6.2f s %5d moves  ", float64(r.Makespan)/1e9, m)
		}
		fmt.Fprintf(w, "  %s / %s\n", kargl[n][0], kargl[n][1])
	}
	fmt.Fprintln(w, "\nULE moves its CPU-bound threads rarely and the job waits for the ranks that share a CPU;")
	fmt.Fprintln(w, "4BSD's global queue time-slices every rank across every CPU, at the price of many moves.")
	return nil
}
