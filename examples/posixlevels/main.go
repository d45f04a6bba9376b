// Command posixlevels is lesson 2 of the course: why FreeBSD's run queue went from 64 queues
// to 256, told with the bug that started it (seed 003).
//
// Run it with
//
//	go run ./examples/posixlevels
//
// POSIX requires at least 32 distinct priority levels for SCHED_FIFO and SCHED_RR. FreeBSD
// offers them through sched_setscheduler(2) (sched_priority 0..31, larger is more important)
// and rtprio(2) (rtp.prio 0..31, smaller is more important; the kernel turns a POSIX priority p
// into rtprio 31 - p). Each rtprio level becomes one kernel priority, PRI_MIN_REALTIME + rtprio
// (rtp_to_pri in kern_resource.c), so the 32 levels are 32 consecutive priorities.
//
// Until 2025 a run queue had 64 queues and kept four adjacent priorities in each (RQ_PPQ = 4,
// runq.LegacyFold). The 32 real-time priorities therefore landed in 8 queues, four levels to a
// queue, and inside a queue threads leave in arrival order: a thread at POSIX priority 31 that
// arrived after one at 28 ran after it, although POSIX says it must run first. FreeBSD main
// gives each priority its own queue (runq.NoFold), and the 32 levels are distinct again.
//
// The lesson queues one SCHED_FIFO thread per POSIX level, least important first (the order in
// which they would arrive if a program started them from low to high priority), on both
// layouts, and prints the order in which each run queue hands them out.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/ule"
)

func main() {
	run(os.Stdout)
}

// thread is one SCHED_FIFO thread: its POSIX priority and the run-queue link.
type thread struct {
	runq.Link[thread]
	posix int // sched_priority, 0..31, larger is more important
}

// run prints the lesson to w.
func run(w io.Writer) {
	wrong := map[ule.Version]int{}
	for _, v := range []ule.Version{ule.Legacy, ule.Main} {
		l := v.Layout()
		fmt.Fprintf(w, "%s layout: real-time priorities %d-%d, %d per queue (RQ_PPQ), %d queues\n",
			v, l.MinRealtime, l.MaxRealtime, l.Fold, l.Fold.NumQueues())

		var q runq.Runq[thread]
		queues := map[runq.Index]bool{}
		for posix := 0; posix <= 31; posix++ { // least important first
			t := &thread{posix: posix}
			t.Init(t)
			rtprio := 31 - posix              // p4prio_to_rtpprio
			pri := l.RealtimePriority(rtprio) // rtp_to_pri: PRI_MIN_REALTIME + rtprio
			idx := l.Fold.Index(pri)          // RQ_PRI_TO_QUEUE_IDX: pri / RQ_PPQ
			queues[idx] = true
			q.Add(idx, &t.Link)
			if posix == 31 || posix == 28 {
				fmt.Fprintf(w, "  POSIX %2d -> rtprio %2d -> priority %3d -> queue %3d\n", posix, rtprio, pri, idx)
			}
		}
		fmt.Fprintf(w, "  the 32 levels occupy %d distinct queues\n", len(queues))

		fmt.Fprint(w, "  service order (POSIX priority):")
		inversions := 0
		last := 99
		for !q.Empty() {
			t, _ := q.Choose()
			q.Remove(&t.Link)
			fmt.Fprintf(w, " %d", t.posix)
			if t.posix > last {
				inversions++ // a more important thread served after a less important one
			}
			last = t.posix
		}
		fmt.Fprintf(w, "\n  a more important thread runs after a less important one %d times\n\n", inversions)
		wrong[v] = inversions
	}
	fmt.Fprintln(w, "With four levels to a queue, each queue serves its threads in arrival order, so within")
	fmt.Fprintf(w, "every group of four the least important thread (queued first) runs first: %d of the 31\n", wrong[ule.Legacy])
	fmt.Fprintf(w, "steps go the wrong way. With one queue per priority, %d: the order is exactly POSIX's.\n", wrong[ule.Main])
}
