package bsd4

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/topology"
)

// This file implements sched_choose: which thread a CPU runs next.

// A Source says which run queue a [Choice] came from.
type Source uint8

const (
	// FromNone: both queues were empty; the CPU runs its idle thread.
	FromNone Source = iota
	// FromGlobal: the global run queue (runq).
	FromGlobal
	// FromPerCPU: the CPU's own run queue for bound and affine threads (runq_pcpu[cpu]).
	FromPerCPU
)

// String returns "none", "global" or "per-CPU".
func (s Source) String() string {
	switch s {
	case FromNone:
		return "none"
	case FromGlobal:
		return "global"
	case FromPerCPU:
		return "per-CPU"
	}
	return fmt.Sprintf("Source(%d)", uint8(s))
}

// A Choice is the outcome of [Pick] with the candidates it compared, so that it can explain
// itself.
type Choice struct {
	// Thread is the chosen thread, nil when From is FromNone. Pick does not remove it.
	Thread *Thread
	// From is the queue Thread is on.
	From Source
	// Global is runq_choose_fuzz's candidate from the global queue, or nil.
	Global *Thread
	// Local is runq_choose's candidate from the CPU's own queue, or nil.
	Local *Thread
	// Fuzzed reports whether runq_fuzz picked a thread other than the head of its queue,
	// because it last ran on this CPU.
	Fuzzed bool
	// CPU is the CPU that chose.
	CPU topology.CPU
}

// String explains the choice, for example "cpu1 runs t3 from the global queue (pri 76 beats
// per-CPU t5 pri 80)".
func (c Choice) String() string {
	switch c.From {
	case FromNone:
		return fmt.Sprintf("%v idles: global and per-CPU queues are empty", c.CPU)
	case FromGlobal:
		why := "per-CPU queue empty"
		if c.Local != nil {
			why = fmt.Sprintf("pri %d is not worse than per-CPU %v pri %d; ties go to the global queue", c.Global.Pri, c.Local.ID, c.Local.Pri)
		}
		fuzz := ""
		if c.Fuzzed {
			fuzz = ", runq_fuzz preferred it for having last run here"
		}
		return fmt.Sprintf("%v runs %v from the global queue (%s%s)", c.CPU, c.Thread.ID, why, fuzz)
	default:
		why := "global queue empty"
		if c.Global != nil {
			why = fmt.Sprintf("pri %d beats global %v pri %d", c.Local.Pri, c.Global.ID, c.Global.Pri)
		}
		return fmt.Sprintf("%v runs %v from its per-CPU queue (%s)", c.CPU, c.Thread.ID, why)
	}
}

// Pick is sched_choose for CPU cpu: the global queue's candidate is runq_choose_fuzz(global,
// fuzz) with fuzz = p.RunqFuzz, the head of the best non-empty queue, or, when fuzz > 1, the
// first of that queue's first fuzz threads that last ran on cpu; the CPU's own queue's candidate is its head
// (runq_choose). The per-CPU candidate wins only with a strictly better priority, so ties go to
// the global queue. Pick removes nothing; the caller takes the thread (also Choice.Thread) off
// its queue. It returns nil when both queues are empty.
//
// There is no stealing step: every CPU searches the one global queue, so no thread can be stuck
// behind a busy CPU while another idles, except bound and affine threads on per-CPU queues,
// which no other CPU may run anyway. The complexity is that of two run-queue searches,
// O(NumQueues/64), plus at most fuzz threads examined.
func Pick(global, local *runq.Runq[Thread], cpu topology.CPU, p *Params) (*Thread, Choice) {
	c := Choice{CPU: cpu}
	c.Global, c.Fuzzed = chooseFuzz(global, cpu, p.RunqFuzz)
	c.Local, _ = local.Choose()
	switch {
	case c.Global == nil && c.Local == nil:
	case c.Global == nil || (c.Local != nil && c.Local.Pri < c.Global.Pri):
		c.Thread, c.From, c.Fuzzed = c.Local, FromPerCPU, false
	default:
		c.Thread, c.From = c.Global, FromGlobal
	}
	return c.Thread, c
}

// choose returns the thread [Pick] returns, without building its Choice: the Scheduler's path
// when the machine records no explanations. Each queue is searched only when it holds a thread
// (runq_choose on an empty queue finds nothing), and a CPU woken by forward_wakeup that lost the
// race, the most common caller on a lightly loaded machine, finds both empty at the cost of two
// counter tests. TestChooseMatchesPick checks it against Pick.
func choose(global, local *runq.Runq[Thread], cpu topology.CPU, fuzz int) *Thread {
	var g *Thread
	if !global.Empty() {
		g, _ = chooseFuzz(global, cpu, fuzz)
	}
	if local.Empty() {
		return g
	}
	l, _ := local.Choose()
	if g == nil || l.Pri < g.Pri {
		return l
	}
	return g
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
