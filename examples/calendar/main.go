// Command calendar is lesson 5 of the course: ULE's calendar queue, and why a nice 0 and a nice
// 20 CPU hog on one CPU split it about 50:50 (seed 000's "another bug which is not fixed").
//
// Run it with
//
//	go run ./examples/calendar
//
// A ULE CPU keeps its batch (time-sharing, non-interactive) threads in a calendar: a circular
// range of run-queue queues with a moving head, tdq_ts_off (tdq_idx in older kernels). A
// thread of batch priority pri is queued pri − PRI_MIN_BATCH queues after the head (wrapping
// around), and the CPU always serves the first non-empty queue at or after the head
// (runq_findq over the two halves of the circle, ule.CalendarIndex and ule.AdvanceCalendar).
// The head moves on by one queue every tick and never passes a non-empty queue it has not
// served.
//
// The design makes batch threads fair in time (nobody starves: every queue is reached
// eventually), but it also means that a worse priority only places a thread further along the
// circle. Two hogs that always have work are each served, then requeued a fixed distance after
// the head; both distances are passed at the same rate, so each gets its turn on every lap. A
// nice 20 hog sits 20 (legacy) or 25 (main) queues further along, which delays it by that many
// ticks per lap but does not make it run less often. The %CPU term of the priority then pushes
// the two towards each other: the hog that ran more gets a worse priority. The split that
// results depends on the slice and is far from what nice promises.
//
// 4BSD has a single sorted run queue: the better priority always runs first, so nice 0 wins
// clearly, tempered by estcpu decay. CFS charges virtual runtime by weight (1024 for nice 0,
// 15 for nice 19, Linux's last level): 98.6:1.4.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

const text = `
thread nice0
	run forever
end

thread nice20 nice=20
	run forever
end
`

func main() { lesson.Main("calendar", run) }

// run prints the lesson to w.
func run(w io.Writer) error {
	// Where the calendar puts a batch thread: main's layout has 109 batch priorities
	// (115-223), one calendar slot each; with the head at slot 40, priority p goes to slot
	// (p - 115 + 40) mod 109.
	l := ule.Main.Layout()
	fmt.Fprintf(w, "ULE main: batch priorities %d-%d, %d calendar slots; with the head at slot 40:\n",
		l.MinBatch, l.MaxBatch, l.BatchRange())
	for _, pri := range []uint8{140, 165, 190, 222} {
		slot := ule.CalendarIndex(pri, 40, 40, 0)
		fmt.Fprintf(w, "  priority %d goes to slot %3d, %3d slots after the head\n", pri, slot, (int(slot)-40+l.BatchRange())%l.BatchRange())
	}
	fmt.Fprintln(w, "(the CPU serves the first non-empty slot from the head on, wrapping around)")

	wl, err := workload.Parse(text)
	if err != nil {
		return err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000, StatHz: 127, Seed: 1}
	fmt.Fprintf(w, "\nnice 0 and nice 20 CPU hogs on one CPU, 60 simulated seconds:\n")
	fmt.Fprintf(w, "%-12s %8s %8s\n", "policy", "nice 0", "nice 20")
	for _, name := range []string{"ule:legacy", "ule:main", "bsd4:main", "cfs:v6.5", "cfs:v7.1"} {
		p, err := presets.New(name)
		if err != nil {
			return err
		}
		r, err := sim.Run(cfg, p, wl, 60*time.Second)
		if err != nil {
			return err
		}
		a, _ := r.Thread("nice0")
		b, _ := r.Thread("nice20")
		fmt.Fprintf(w, "%-12s %7.1f%% %7.1f%%\n", name, 100*a.Share(), 100*b.Share())
	}
	fmt.Fprintln(w, "\n(Linux stops at nice 19; the CFS rows run the second hog at nice 19, weight 15 against 1024.)")
	return nil
}
