package bsd4

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// This file implements sched_choose: which thread a CPU runs next.

// A Source says which run queue a [PickReason] names.
type Source uint8

const (
	// FromNone: both queues were empty; the CPU runs its idle thread.
	FromNone Source = iota
	// FromGlobal: the global run queue (runq).
	FromGlobal
	// FromPerCPU: the CPU's own run queue for bound and affine threads (runq_pcpu[cpu]).
	FromPerCPU
)

var sourceNames = [...]string{FromNone: "none", FromGlobal: "global", FromPerCPU: "per-CPU"}

// String returns "none", "global" or "per-CPU".
func (s Source) String() string { return sched.EnumName(sourceNames[:], s, "Source") }

// A PickReason explains a [Pick]: the thread chosen and the candidates it was compared with.
// It holds pointers to the threads, so it costs nothing to build; its String formats it.
type PickReason struct {
	// Thread is the chosen thread, nil when From is FromNone. Pick does not remove it.
	Thread *Thread
	// From is the queue Thread is on.
	From Source
	// Global is runq_choose_fuzz's candidate from the global queue, or nil.
	Global *Thread
	// Local is runq_choose's candidate from the CPU's own queue, or nil.
	Local *Thread
	// GlobalPri and LocalPri are the candidates' priorities when Pick compared them (a
	// picked thread's priority may change as it returns to user mode).
	GlobalPri, LocalPri uint8
	// Fuzzed reports whether runq_fuzz picked a thread other than the head of its queue,
	// because it last ran on this CPU.
	Fuzzed bool
	// CPU is the CPU that chose.
	CPU topology.CPU
}

// String explains the choice, for example "cpu1 runs t3 from the global queue (pri 76 beats
// per-CPU t5 pri 80)".
func (c PickReason) String() string {
	switch c.From {
	case FromNone:
		return fmt.Sprintf("%v idles: global and per-CPU queues are empty", c.CPU)
	case FromGlobal:
		why := "per-CPU queue empty"
		if c.Local != nil {
			why = fmt.Sprintf("pri %d is not worse than per-CPU %v pri %d; ties go to the global queue", c.GlobalPri, c.Local.ID, c.LocalPri)
		}
		fuzz := ""
		if c.Fuzzed {
			fuzz = ", runq_fuzz preferred it for having last run here"
		}
		return fmt.Sprintf("%v runs %v from the global queue (%s%s)", c.CPU, c.Thread.ID, why, fuzz)
	default:
		why := "global queue empty"
		if c.Global != nil {
			why = fmt.Sprintf("pri %d beats global %v pri %d", c.LocalPri, c.Global.ID, c.GlobalPri)
		}
		return fmt.Sprintf("%v runs %v from its per-CPU queue (%s)", c.CPU, c.Thread.ID, why)
	}
}

// Pick is sched_choose for CPU cpu: the global queue's candidate is runq_choose_fuzz(global,
// fuzz) with fuzz = p.RunqFuzz, the head of the best non-empty queue, or, when fuzz > 1, the
// first of that queue's first fuzz threads that last ran on cpu; the CPU's own queue's
// candidate is its head (runq_choose). The per-CPU candidate wins only with a strictly better
// priority, so ties go to the global queue. Pick removes nothing; the caller takes the thread
// (also PickReason.Thread) off its queue. It returns nil when both queues are empty.
//
// There is no stealing step: every CPU searches the one global queue, so no thread can be stuck
// behind a busy CPU while another idles, except bound and affine threads on per-CPU queues,
// which no other CPU may run anyway. A queue is searched only when it holds a thread
// (runq_choose on an empty queue finds nothing), so a CPU woken by forward_wakeup that lost the
// race, the most common caller on a lightly loaded machine, finds both empty at the cost of two
// counter tests. The complexity is that of two run-queue searches, O(NumQueues/64), plus at
// most fuzz threads examined.
func Pick(global, local *runq.Runq[Thread], cpu topology.CPU, p *Params) (*Thread, PickReason) {
	c := PickReason{CPU: cpu}
	if !global.Empty() {
		c.Global, c.Fuzzed = chooseFuzz(global, cpu, p.RunqFuzz)
		c.GlobalPri = c.Global.Pri
	}
	if !local.Empty() {
		c.Local, _ = local.Choose()
		c.LocalPri = c.Local.Pri
	}
	switch {
	case c.Global == nil && c.Local == nil:
	case c.Global == nil || (c.Local != nil && c.LocalPri < c.GlobalPri):
		c.Thread, c.From, c.Fuzzed = c.Local, FromPerCPU, false
	default:
		c.Thread, c.From = c.Global, FromGlobal
	}
	return c.Thread, c
}

// chooseFuzz is runq_choose_fuzz: the head of the best queue, or with fuzz > 1 the first of its
// first fuzz threads whose td_lastcpu is cpu.
func chooseFuzz(q *runq.Runq[Thread], cpu topology.CPU, fuzz int) (*Thread, bool) {
	if fuzz <= 1 {
		t, _ := q.Choose()
		return t, false
	}
	var chosen *Thread
	fuzzed := false
	q.Find(runq.FullRange(), func(_ runq.Index, qq *runq.Queue[Thread]) bool {
		head := qq.Front()
		chosen = head
		n := fuzz
		for t := range qq.All() {
			if n == 0 {
				break
			}
			n--
			if t.hasLast && t.lastCPU == cpu {
				chosen, fuzzed = t, t != head
				break
			}
		}
		return true
	})
	return chosen, fuzzed
}
