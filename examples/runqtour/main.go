// Command runqtour is a guided tour of FreeBSD's 256-queue run queue (package runq): it queues
// and picks threads the way a CPU does and prints the status bitmap after every step, so you can
// watch bit i follow the emptiness of queue i.
//
// Run it with:
//
//	go run ./examples/runqtour
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedkit/schedkit/runq"
)

// thread is the element type: a runq.Link embedded in our own struct.
type thread struct {
	runq.Link[thread]
	name   string
	pri    uint8
	pinned bool
}

func newThread(name string, pri uint8) *thread {
	t := &thread{name: name, pri: pri}
	t.Init(t)
	return t
}

// Priority bands of FreeBSD main (sys/sys/priority.h after D45391).
var (
	realtime  = runq.Range{Lo: 0, Hi: 55}    // interrupt threads 0-7, realtime 8-39, kernel 40-55
	timeshare = runq.Range{Lo: 56, Hi: 223}  // user threads
	idle      = runq.Range{Lo: 224, Hi: 255} // idle-class threads
)

func main() {
	run(os.Stdout)
}

// tour holds the queue and the output of the lesson.
type tour struct {
	w    io.Writer
	q    runq.Runq[thread]
	step int
}

// show prints a step's title, the four status words as rows of 64 bits ('#' = non-empty), and
// the queue contents.
func (t *tour) show(title string) {
	t.step++
	fmt.Fprintf(t.w, "\n%d. %s\n", t.step, title)
	st := t.q.Status()
	for w := range len(st) {
		var row strings.Builder
		for b := range 64 {
			if st[w]&(1<<b) != 0 {
				row.WriteByte('#')
			} else {
				row.WriteByte('.')
			}
		}
		fmt.Fprintf(t.w, "   %3d-%3d %s\n", w*64, w*64+63, row.String())
	}
	fmt.Fprintf(t.w, "   status %s, %d threads:", st.String(), t.q.Len())
	for i, qq := range t.q.All() {
		fmt.Fprintf(t.w, " %d[", i)
		sep := ""
		for x := range qq.All() {
			fmt.Fprintf(t.w, "%s%s", sep, x.name)
			sep = " "
		}
		fmt.Fprint(t.w, "]")
	}
	fmt.Fprintln(t.w)
}

func (t *tour) add(x *thread) { t.q.Add(runq.Index(x.pri), &x.Link) }

func run(w io.Writer) {
	t := &tour{w: w}
	fmt.Fprintln(w, "A FreeBSD run queue: 256 FIFO queues (0 runs first) and a 256-bit status map,")
	fmt.Fprintln(w, "bit i set exactly when queue i is non-empty. Choosing the next thread is a")
	fmt.Fprintln(w, "count-trailing-zeros over at most four 64-bit words.")

	t.show("The zero value is an empty run queue: every bit is clear.")

	t.add(newThread("editor", 90))
	t.add(newThread("make", 150))
	t.add(newThread("cc", 150))
	t.show("Three user threads: bits 90 and 150 are set; cc waits behind make (FIFO).")

	irq := newThread("intr", 4)
	t.add(irq)
	rt := newThread("audio", 8)
	t.add(rt)
	t.add(newThread("idle-job", 240))
	t.show("An interrupt thread (4), a POSIX SCHED_FIFO priority-31 thread (8), an idle-class job (240).")

	x, _ := t.q.Choose()
	emptied := t.q.Remove(&x.Link)
	t.show(fmt.Sprintf("Choose takes the head of the first non-empty queue: %s; Remove reports the queue emptied = %t, so bit 4 clears.", x.name, emptied))

	mk := t.q.Queue(150).Front()
	t.q.Remove(&mk.Link) // make runs on some CPU...
	t.add(newThread("ld", 150))
	t.q.AddHead(150, &mk.Link) // ...and is preempted by an interrupt: back to the head
	t.show("make ran, ld arrived behind cc, then make was preempted: AddHead puts it back in front of cc and ld.")

	for _, r := range []runq.Range{realtime, timeshare, idle} {
		x, ok := t.q.FirstIn(r)
		name := "(empty)"
		if ok {
			name = x.name
		}
		fmt.Fprintf(w, "   FirstIn(%v) = %s\n", r, name)
	}

	i, _ := t.q.FindCircular(timeshare, 100, func(runq.Index, *runq.Queue[thread]) bool { return true })
	fmt.Fprintf(w, "   FindCircular(%v, start 100) = queue %d: the calendar scan starts at the offset and wraps.\n", timeshare, i)
	i, _ = t.q.FindCircular(timeshare, 151, func(runq.Index, *runq.Queue[thread]) bool { return true })
	fmt.Fprintf(w, "   FindCircular(%v, start 151) = queue %d: nothing after 151, so it wrapped to the start.\n", timeshare, i)

	mk.pinned = true
	band := runq.Range{Lo: 100, Hi: 223}
	s, ok := t.q.Steal(band, func(x *thread) bool { return !x.pinned })
	fmt.Fprintf(w, "   Steal(%v, not pinned) = %s, %t: make is pinned, so the thief passes over it to the next thread.\n", band, s.name, ok)
	t.q.Remove(&s.Link)
	t.show("The thief removed " + s.name + ".")

	fmt.Fprintln(w, "\nWhy 256 queues (seed 003): the 32 POSIX SCHED_FIFO/RR levels are 32 consecutive priorities.")
	for _, c := range []struct {
		name  string
		f     runq.Fold
		minRT uint8
	}{{"legacy, 64 queues of 4 priorities", runq.LegacyFold, 16}, {"main, 256 queues", runq.NoFold, 8}} {
		seen := map[runq.Index]bool{}
		for posix := range 32 {
			seen[c.f.Index(c.minRT+31-uint8(posix))] = true
		}
		fmt.Fprintf(w, "   %-34s POSIX 0..31 land in %2d distinct queues\n", c.name+":", len(seen))
	}
}
