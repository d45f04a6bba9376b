// This file implements the questions: each draws a small random state from the quiz's seeded
// source, asks what the policy decides, and takes the answer and its explanation from the
// policy's own pure function, never from a rule written here.

package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// A question is a scenario, the choices offered, the right one and why.
type question struct {
	text    string
	choices []string
	answer  int    // index into choices
	why     string // the policy's explanation, as its Reason type prints it
}

// kinds are the kinds of question, in the order a quiz cycles through them.
var kinds = []struct {
	name string
	gen  func(rng *rand.Rand) question
}{
	{"pick", pickQuestion},
	{"wakeup", wakeupQuestion},
	{"remote", remoteQuestion},
}

// band draws a priority from the classes of layout l (sys/sys/priority.h): real-time,
// interactive, batch and idle, weighted towards the time-sharing ones.
func band(rng *rand.Rand, l ule.Layout) int {
	in := func(lo, hi uint8) int { return int(lo) + rng.IntN(int(hi)-int(lo)+1) }
	switch x := rng.IntN(20); {
	case x < 3:
		return in(l.MinRealtime, l.MaxRealtime)
	case x < 9:
		return in(l.MinInteract, l.MaxInteract)
	case x < 18:
		return in(l.MinBatch, l.MaxBatch)
	default:
		return in(l.MinIdle, l.MaxIdle)
	}
}

// describe names the class of pri in layout l.
func describe(pri int, l ule.Layout) string {
	switch {
	case pri <= int(l.MaxIthd):
		return "interrupt"
	case pri <= int(l.MaxRealtime):
		return "real-time"
	case pri <= int(l.MaxKern):
		return "kernel"
	case pri <= int(l.MaxInteract):
		return "interactive"
	case pri <= int(l.MaxBatch):
		return "batch"
	}
	return "idle class"
}

// pickQuestion: a ULE CPU with a few queued threads and its calendar at some offset; which
// thread does tdq_choose take? The answer is ule.Pick's.
func pickQuestion(rng *rand.Rand) question {
	p := ule.DefaultParams()
	c := ule.NewCPUState(0, &p)
	off := uint8(rng.IntN(109))
	c.TSOff, c.DeqOff = off, off
	n := 3 + rng.IntN(3)
	names := []string{"A", "B", "C", "D", "E"}
	var b strings.Builder
	fmt.Fprintf(&b, "A ULE CPU (FreeBSD main) has its calendar head at slot %d (batch priority p goes to slot\n", off)
	fmt.Fprintf(&b, "(p - 115 + %d) mod 109). Queued, in this order:\n", off)
	threads := map[*ule.Thread]int{}
	l := p.Layout()
	for i := range n {
		pri := band(rng, l)
		t := ule.InitThread(&ule.Thread{ID: sched.ID(i), Priority: uint8(pri), Affinity: topology.CPUSetOf(0)})
		c.Add(t, ule.SRQBoring)
		threads[t] = i
		fmt.Fprintf(&b, "  %s  priority %3d (%s)\n", names[i], pri, describe(pri, l))
	}
	b.WriteString("Which thread runs next?")
	t, why := ule.Pick(c)
	return question{text: b.String(), choices: names[:n], answer: threads[t], why: why.String()}
}

// wakeupQuestion: a thread wakes on the CPU that runs another; what does sched_setpreempt ask
// for? The answer is ule.SetPreempt's.
func wakeupQuestion(rng *rand.Rand) question {
	p := ule.DefaultParams()
	if rng.IntN(2) == 0 {
		p = ule.LegacyParams()
	}
	l := p.Layout()
	pri, cpri := band(rng, l), band(rng, l)
	text := fmt.Sprintf("ULE (%s, preempt_thresh %d). A thread of priority %d (%s) wakes up on the CPU\n"+
		"that is running a thread of priority %d (%s). What happens?", p.Name, p.PreemptThresh, pri, describe(pri, l), cpri, describe(cpri, l))
	kick, why := ule.SetPreempt(pri, cpri, &p)
	choices := []string{"nothing: it waits its turn", "a reschedule when the running thread returns to user mode (AST)", "an immediate preemption"}
	answer := map[ule.Kick]int{ule.KickNone: 0, ule.KickAST: 1, ule.KickPreempt: 2}[kick]
	return question{text: text, choices: choices, answer: answer, why: kick.String() + ": " + why.String()}
}

// remoteQuestion: a thread is queued on another CPU than the waker's; does tdq_notify send that
// CPU a preemption IPI? The answer is ule.ShouldPreempt's with remote set.
func remoteQuestion(rng *rand.Rand) question {
	p := ule.DefaultParams()
	if rng.IntN(3) == 0 {
		p = ule.Seed000Params(true, 224) // seed 000's patched row
	}
	l := p.Layout()
	pri, cpri := band(rng, l), band(rng, l)
	text := fmt.Sprintf("ULE (%s, preempt_thresh %d). A thread of priority %d (%s) is woken by CPU 0 and queued\n"+
		"on CPU 1, whose best priority is %d (%s). Does CPU 1 get a preemption IPI?", p.Name, p.PreemptThresh, pri, describe(pri, l), cpri, describe(cpri, l))
	yes, why := ule.ShouldPreempt(pri, cpri, true, &p)
	answer := 1
	if yes {
		answer = 0
	}
	return question{text: text, choices: []string{"yes", "no"}, answer: answer, why: why.String()}
}
