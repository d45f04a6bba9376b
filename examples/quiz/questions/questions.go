// Package questions generates the quiz's questions (examples/quiz, and the course page's quiz):
// each draws a small random state from the quiz's seeded source, asks what the policy decides,
// and takes the answer and its explanation from the policy's own pure function, never from a
// rule written here. The same seed always gives the same questions.
package questions

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// A Question is a scenario, the choices offered, the right one and why.
type Question struct {
	Text    string   `json:"text"`
	Choices []string `json:"choices"`
	Answer  int      `json:"answer"` // index into Choices
	Why     string   `json:"why"`    // the policy's explanation, as its Reason type prints it
	facts   any      // the state the question was drawn from, for the tests' own models
}

// Generate returns the n questions of seed: the kinds in turn, each drawn from one PCG stream.
func Generate(seed uint64, n int) []Question {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	qs := make([]Question, n)
	for i := range qs {
		qs[i] = kinds[i%len(kinds)].gen(rng)
	}
	return qs
}

// kinds are the kinds of question, in the order a quiz cycles through them.
var kinds = []struct {
	name string
	gen  func(rng *rand.Rand) Question
}{
	{"pick", pickQuestion},
	{"wakeup", wakeupQuestion},
	{"remote", remoteQuestion},
	{"eevdf", eevdfQuestion},
	{"steal", stealQuestion},
	{"pickcpu", pickCPUQuestion},
	{"bsd4wakeup", bsd4WakeupQuestion},
	{"cfswakeup", cfsWakeupQuestion},
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
func pickQuestion(rng *rand.Rand) Question {
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
	return Question{Text: b.String(), Choices: names[:n], Answer: threads[t], Why: why.String()}
}

// wakeupQuestion: a thread wakes on the CPU that runs another; what does sched_setpreempt ask
// for? The answer is ule.SetPreempt's.
func wakeupQuestion(rng *rand.Rand) Question {
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
	return Question{Text: text, Choices: choices, Answer: answer, Why: kick.String() + ": " + why.String()}
}

// remoteQuestion: a thread is queued on another CPU than the waker's; does tdq_notify send that
// CPU a preemption IPI? The answer is ule.ShouldPreempt's with remote set.
func remoteQuestion(rng *rand.Rand) Question {
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
	return Question{Text: text, Choices: []string{"yes", "no"}, Answer: answer, Why: why.String()}
}

// eevdfFacts are the entities of an eevdf question, relative to the queue's zero_vruntime.
type eevdfFacts struct {
	weights, vruntimes, deadlines []int64 // full weights (1048576 for nice 0), ns, ns
}

// eevdfQuestion: a Linux 7.1 queue with a few tasks at chosen vruntimes, deadlines and nice
// levels, nothing running; which does pick_eevdf choose? The answer is cfs.Pick's on a queue
// built at exactly that state (cfs.NewRunQueueAt).
func eevdfQuestion(rng *rand.Rand) Question {
	p, _ := cfs.Preset("v7.1")
	const z = 1 << 40
	n := 3 + rng.IntN(3)
	names := []string{"A", "B", "C", "D", "E"}
	var states []cfs.EntityState
	var f eevdfFacts
	var b strings.Builder
	b.WriteString("A Linux 7.1 (EEVDF) queue; nothing is running. Times in µs relative to zero_vruntime:\n")
	for i := range n {
		nice := []int{-5, -2, 0, 0, 0, 3, 5}[rng.IntN(7)]
		lw := cfs.TaskLoad(cfs.Normal, nice)
		v := int64(rng.IntN(4001)-2000) * 1000 // ±2 ms, in ns
		slice := uint64(500+rng.IntN(5)*500) * 1000
		d := v + int64(cfs.CalcDeltaFair(cfs.DeltaDiv, slice, lw))
		states = append(states, cfs.EntityState{Name: names[i], Weight: lw.Weight, Vruntime: uint64(z + v), Deadline: uint64(z + d), Slice: slice, CustomSlice: true})
		f.weights = append(f.weights, int64(lw.Weight))
		f.vruntimes = append(f.vruntimes, v)
		f.deadlines = append(f.deadlines, d)
		fmt.Fprintf(&b, "  %s  nice %2d (weight %4d)  vruntime %+6d  slice %4d  deadline %+6d\n", names[i], nice, cfs.Weight(nice), v/1000, slice/1000, d/1000)
	}
	b.WriteString("Which task runs next?")
	c, ts, _, err := cfs.NewRunQueueAt(0, p, z, states, nil)
	if err != nil {
		panic("quiz: " + err.Error()) // the states above are always valid
	}
	e, why := cfs.Pick(c.Root(), nil, c.Params())
	ans := 0
	for i, t := range ts {
		if t == e {
			ans = i
		}
	}
	return Question{Text: b.String(), Choices: names[:n], Answer: ans, Why: why.String() + " (the average vruntime V decides who is eligible: lag = V - vruntime >= 0)", facts: f}
}

// stealFacts are the queued threads of a steal question, per CPU, and the steal threshold.
type stealFacts struct {
	queued [][]sched.ID // per CPU, in queue order, excluding the running thread
	load   []int        // per CPU, running + queued
	thresh int
}

// stealQuestion: an idle CPU of a small ULE machine looks for work (tdq_idled); from which CPU,
// and which thread, does it steal? The answer is ule.System.Steal's.
func stealQuestion(rng *rand.Rand) Question {
	p := ule.DefaultParams()
	if rng.IntN(2) == 0 {
		p = ule.LegacyParams()
	}
	top := topology.Uniform(1, 1, 2, 2, 1) // two LLCs of two cores
	s, err := ule.NewSystem(p, top)
	if err != nil {
		panic("quiz: " + err.Error())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ULE (%s) on %v: two last-level caches, {0,1} and {2,3}. CPU 0 is idle and looks\n", p.Name, top)
	fmt.Fprintf(&b, "for a thread to steal (steal_thresh %d: a victim needs at least that many threads).\n", s.StealThreshold())
	f := stealFacts{queued: make([][]sched.ID, 4), load: make([]int, 4), thresh: s.StealThreshold()}
	var choices []string
	var where []sched.ID
	id := sched.ID(0)
	l := p.Layout()
	for cpu := topology.CPU(1); cpu < 4; cpu++ {
		c := s.CPU(cpu)
		n := rng.IntN(4)
		var running *ule.Thread
		for k := range n {
			pri := uint8(int(l.MinBatch) + rng.IntN(60))
			t := ule.InitThread(&ule.Thread{ID: id, Priority: pri, Affinity: top.CPUs()})
			if rng.IntN(5) == 0 && k > 0 {
				t.Affinity = topology.CPUSetOf(cpu) // pinned to its CPU
			}
			c.Add(t, ule.SRQBoring)
			id++
		}
		if n > 0 {
			running, _ = c.Choose() // the first to run leaves the queue
		}
		fmt.Fprintf(&b, "  cpu%d:", cpu)
		if running == nil {
			b.WriteString(" idle")
		} else {
			fmt.Fprintf(&b, " running t%d;", running.ID)
			f.load[cpu]++
		}
		{
			for _, q := range queuedOf(c) {
				pin := ""
				if q.Affinity.Count() == 1 {
					pin = ", pinned"
				}
				fmt.Fprintf(&b, " queued t%d (pri %d%s)", q.ID, q.Priority, pin)
				choices = append(choices, fmt.Sprintf("t%d from cpu%d", q.ID, cpu))
				where = append(where, q.ID)
				f.queued[cpu] = append(f.queued[cpu], q.ID)
				f.load[cpu]++
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("What does CPU 0 steal?")
	choices = append(choices, "nothing")
	r := ule.NewRand(0, uint64(rng.Uint32()))
	_, t, why := s.Steal(0, 0, &r)
	ans := len(choices) - 1
	for i, q := range where {
		if t != nil && t.ID == q {
			ans = i
		}
	}
	return Question{Text: b.String(), Choices: choices, Answer: ans, Why: why.String(), facts: f}
}

// queuedOf lists the threads queued on c (not the running one), in the run queue's order.
func queuedOf(c *ule.CPUState) []*ule.Thread {
	var out []*ule.Thread
	for t := range c.Queued() {
		out = append(out, t)
	}
	return out
}

// pickCPUFacts are the state of a pickcpu question.
type pickCPUFacts struct {
	loads []cpuLoad
	pri   uint8
	last  topology.CPU
	ago   uint32
}

// A cpuLoad is what sched_pickcpu reads of a CPU: its threads (TDQ_LOAD) and the best priority
// among them (tdq_lowpri, PriMaxIdle when it idles).
type cpuLoad struct {
	Load   int32
	LowPri uint8
}

const pickCPUNow = 1000

// pickCPU answers a pickcpu question's state with ULE's sched_pickcpu, drawing its tie-breaks
// from a generator seeded with seed.
func pickCPU(f pickCPUFacts, seed uint64) (topology.CPU, ule.PickCPUReason) {
	top := topology.Uniform(1, 1, 2, 2, 1)
	s, err := ule.NewSystem(ule.DefaultParams(), top)
	if err != nil {
		panic("quiz: " + err.Error())
	}
	id := sched.ID(100)
	for c, ld := range f.loads {
		// Load threads of priority LowPri, one of them running: the CPU's load and LowPri.
		cpu := s.CPU(topology.CPU(c))
		for range ld.Load {
			cpu.Add(ule.InitThread(&ule.Thread{ID: id, Priority: ld.LowPri, Affinity: topology.CPUSetOf(topology.CPU(c))}), ule.SRQBoring)
			id++
		}
		if ld.Load > 0 {
			cpu.Choose()
		}
	}
	t := ule.InitThread(&ule.Thread{ID: 99, Priority: f.pri, Affinity: top.CPUs(), CPU: f.last, RLTick: pickCPUNow - f.ago})
	r := ule.NewRand(0, seed)
	return s.PickCPU(t, 0, pickCPUNow, ule.SRQBoring, false, &r)
}

// pickCPUQuestion: a thread wakes on a small ULE machine; on which CPU is it queued
// (sched_pickcpu)? The answer is ule.System.PickCPU's. sched_pickcpu breaks ties between
// equally good CPUs at random; a state whose answer depends on the draw is drawn again, so
// that every question has one answer.
func pickCPUQuestion(rng *rand.Rand) Question {
	p := ule.DefaultParams()
	l := p.Layout()
	var f pickCPUFacts
	var cpu topology.CPU
	var why ule.PickCPUReason
	for {
		f = pickCPUFacts{loads: make([]cpuLoad, 4), pri: uint8(int(l.MinBatch) + rng.IntN(60)),
			last: topology.CPU(rng.IntN(4)), ago: uint32(1 + rng.IntN(30))}
		for c := range f.loads {
			if rng.IntN(3) == 0 {
				f.loads[c] = cpuLoad{LowPri: ule.PriMaxIdle}
				continue
			}
			load := 1 + rng.IntN(3)
			low := uint8(int(l.MinInteract) + rng.IntN(int(l.MaxBatch)-int(l.MinInteract)))
			f.loads[c] = cpuLoad{Load: int32(load), LowPri: low}
		}
		cpu, why = pickCPU(f, 0)
		unique := true
		for seed := uint64(1); seed < 8 && unique; seed++ {
			c, _ := pickCPU(f, seed)
			unique = c == cpu
		}
		if unique {
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ULE (%s) on two last-level caches, {0,1} and {2,3}. CPU 0 wakes a thread of priority %d\n", p.Name, f.pri)
	fmt.Fprintf(&b, "that last ran on cpu%d, %d ticks ago (kern.sched.affinity: %d ticks per cache level). The CPUs:\n", f.last, f.ago, p.AffinityTicks())
	for c, ld := range f.loads {
		if ld.LowPri == ule.PriMaxIdle {
			fmt.Fprintf(&b, "  cpu%d: idle\n", c)
		} else {
			fmt.Fprintf(&b, "  cpu%d: %d thread(s), best priority %d\n", c, ld.Load, ld.LowPri)
		}
	}
	b.WriteString("Which CPU is the thread queued on?")
	return Question{Text: b.String(), Choices: []string{"cpu0", "cpu1", "cpu2", "cpu3"}, Answer: int(cpu), Why: why.String(), facts: f}
}

// bsd4Band draws a priority from the classes of 4BSD's layout l: interrupt thread, real-time,
// time-sharing (most often) and idle.
func bsd4Band(rng *rand.Rand, l bsd4.Layout) int {
	in := func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }
	switch x := rng.IntN(20); {
	case x < 3:
		return in(0, int(l.MaxITHD))
	case x < 6:
		return in(int(l.MinRealtime), int(l.MinRealtime)+31)
	case x < 18:
		return in(int(l.MinTimeshare), int(l.MinIdle)-1)
	default:
		return in(int(l.MinIdle), 255)
	}
}

// bsd4Describe names the class of pri in 4BSD's layout l.
func bsd4Describe(pri int, l bsd4.Layout) string {
	switch {
	case pri <= int(l.MaxITHD):
		return "interrupt thread"
	case pri < int(l.MinKern):
		return "real-time"
	case pri < int(l.MinTimeshare):
		return "kernel"
	case pri < int(l.MinIdle):
		return "time-sharing"
	}
	return "idle class"
}

// bsd4WakeupQuestion: under 4BSD a thread becomes runnable on the CPU that is running another;
// is the running one preempted at once (maybe_preempt)? The answer is bsd4.ShouldPreempt's,
// under GENERIC's options PREEMPTION or with FULL_PREEMPTION added.
func bsd4WakeupQuestion(rng *rand.Rand) Question {
	p := bsd4.DefaultParams()
	opts := "options PREEMPTION"
	if rng.IntN(3) == 0 {
		p.FullPreemption = true
		opts = "options PREEMPTION and FULL_PREEMPTION"
	}
	l := p.Layout
	pri, cpri := bsd4Band(rng, l), bsd4Band(rng, l)
	text := fmt.Sprintf("4BSD (%s, %s). A thread of priority %d (%s) becomes runnable on the CPU\n"+
		"that is running a thread of priority %d (%s). Is the running thread preempted at once?",
		p.Name, opts, pri, bsd4Describe(pri, l), cpri, bsd4Describe(cpri, l))
	yes, why := bsd4.ShouldPreempt(uint8(pri), uint8(cpri), &p)
	answer := 1
	if yes {
		answer = 0
	}
	return Question{Text: text, Choices: []string{"yes", "no"}, Answer: answer, Why: why.String(),
		facts: bsd4WakeupFacts{pri, cpri, p.FullPreemption, l}}
}

// bsd4WakeupFacts are the priorities and options of a bsd4wakeup question.
type bsd4WakeupFacts struct {
	pri, cpri int
	full      bool
	layout    bsd4.Layout
}

// cfsWakeupFacts are the running task and the wakee of a cfswakeup question, vruntimes in ns
// relative to min_vruntime, and the wakeup granularity in ns.
type cfsWakeupFacts struct {
	currV, wakeeV int64
	wakeeWeight   uint64 // full resolution: 1048576 for nice 0
	gran          uint64
}

// cfsWakeupQuestion: on a Linux 6.5 (CFS) CPU a task wakes while another runs; does it preempt
// (check_preempt_wakeup)? The answer is cfs.CheckPreemptWakeup's on a queue built at exactly
// that state (cfs.NewRunQueueAt).
func cfsWakeupQuestion(rng *rand.Rand) Question {
	p, _ := cfs.Preset("v6.5")
	const z = 1 << 40
	nices := []int{-5, -2, 0, 0, 0, 3, 5, 10}
	cn, wn := nices[rng.IntN(len(nices))], nices[rng.IntN(len(nices))]
	cv := int64(1000+rng.IntN(4001)) * 1000          // the running task: 1..5 ms past min_vruntime
	wv := max(cv-int64(rng.IntN(5001)-1000)*1000, 0) // the wakee: 1 ms after to 4 ms before it, not before min_vruntime
	cl, wl := cfs.TaskLoad(cfs.Normal, cn), cfs.TaskLoad(cfs.Normal, wn)
	curr := cfs.EntityState{Name: "R", Weight: cl.Weight, Vruntime: uint64(z + cv)}
	wakee := cfs.EntityState{Name: "W", Weight: wl.Weight, Vruntime: uint64(z + wv)}
	c, ts, _, err := cfs.NewRunQueueAt(0, p, z, []cfs.EntityState{wakee}, &curr)
	if err != nil {
		panic("quiz: " + err.Error()) // the states above are always valid
	}
	d, why := cfs.CheckPreemptWakeup(c, ts[0], false, c.Params())
	text := fmt.Sprintf("Linux 6.5 (CFS), one CPU, wakeup granularity %d µs (nice-0 time). Task R (nice %d, weight %d) runs\n"+
		"with vruntime %d µs past min_vruntime. Task W (nice %d, weight %d) wakes with vruntime %d µs.\n"+
		"Does W preempt R?", p.WakeupGranularity/1000, cn, cfs.Weight(cn), cv/1000, wn, cfs.Weight(wn), wv/1000)
	answer := 1
	if d.Preempt {
		answer = 0
	}
	return Question{Text: text, Choices: []string{"yes", "no"}, Answer: answer, Why: d.Explain(why),
		facts: cfsWakeupFacts{cv, wv, wl.Weight, p.WakeupGranularity}}
}
