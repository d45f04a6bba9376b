package bsd4

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// FuzzScheduler drives a Scheduler on three CPUs with a random stream of forks, wake-ups,
// ticks, stops (sleep, yield, exit), attribute changes and bindings. The test machine checks
// every invariant (checkScheduler) after each call and every Pick against the naive model
// (naivePick). The stream runs three times: with explanations, without, and without on an Env
// that reschedules sets of CPUs in one call (sched.ReschedSetter). The runs take different
// paths through Pick and sched_add (the decisions with their explanations; the fast paths; the
// fast paths with ReschedSet), and must ask for the same reschedules in the same order, pick
// the same threads and leave the same state.
func FuzzScheduler(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 2, 2, 8, 3, 0, 1, 0, 1})
	f.Add([]byte{0, 10, 0, 200, 0, 3, 1, 1, 1, 2, 2, 6, 1, 7, 8, 8, 4, 1, 5, 2})
	f.Add([]byte{0, 255, 0, 7, 0, 1, 7, 0, 1, 7, 1, 2, 8, 8, 6, 0, 9, 5, 0, 3, 1})
	f.Add([]byte{9, 0, 1, 0, 33, 0, 66, 2, 2, 2, 8, 8, 8, 8, 3, 1, 3, 2, 1, 0, 1, 1, 1, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		compareRuns(t, ops)
	})
}

// TestSchedulerFastPaths runs FuzzScheduler's check on random operation streams.
func TestSchedulerFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 3))
	n := 300
	if testing.Short() {
		n = 30
	}
	for range n {
		ops := make([]byte, 50+rng.IntN(300))
		for i := range ops {
			ops[i] = byte(rng.Uint32())
		}
		compareRuns(t, ops)
	}
}

// An envMode is the Env a runOps machine gives its Scheduler.
type envMode uint8

const (
	envPlain     envMode = iota // Resched only, no explanations
	envExplained                // Resched only, explanations recorded
	envSet                      // Resched and ReschedSet, no explanations
)

var envModeNames = [...]string{envPlain: "plain", envExplained: "explained", envSet: "ReschedSet"}

// compareRuns runs ops in each envMode and fails if the machine saw different calls or the
// Scheduler's states differ.
func compareRuns(t *testing.T, ops []byte) {
	t.Helper()
	plain := runOps(t, ops, envPlain)
	for _, mode := range []envMode{envExplained, envSet} {
		other := runOps(t, ops, mode)
		if len(plain) != len(other) {
			t.Fatalf("ops %v: %d machine calls plain, %d %s", ops, len(plain), len(other), envModeNames[mode])
		}
		for i := range plain {
			if plain[i] != other[i] {
				t.Fatalf("ops %v: machine call %d is %q plain, %q %s", ops, i, plain[i], other[i], envModeNames[mode])
			}
		}
	}
}

// snapshot formats the state the machine cannot see: each CPU's pending reschedule and owed
// preemption, the idle mask, and the order of every run queue.
func snapshot(sc *Scheduler) string {
	s := sc.sys
	var b strings.Builder
	for c := range s.cpus.All() {
		p := &s.pcpu[c]
		fmt.Fprintf(&b, "%v: resched %t owe %t idle %t queue", c, s.needResched.Has(c), p.owePreempt, s.idle.Has(c))
		for _, t := range p.runq.Elems() {
			fmt.Fprintf(&b, " %v", t.ID)
		}
		b.WriteString("; ")
	}
	b.WriteString("global")
	for _, t := range s.global.Elems() {
		fmt.Fprintf(&b, " %v", t.ID)
	}
	return b.String()
}

// runOps decodes ops into calls on a test machine (see FuzzScheduler) and returns the calls the
// machine saw (the reschedules the Scheduler asked for and the threads it picked, in order), with
// a snapshot of the Scheduler's state before each operation.
func runOps(t testing.TB, ops []byte, mode envMode) []string {
	p := DefaultParams()
	if len(ops) > 0 {
		switch ops[0] % 4 {
		case 1:
			p = FreeBSD9Params()
		case 2:
			p = FreeBSD14Params()
		case 3:
			p.FullPreemption, p.IPIPreemption, p.RunqFuzz = true, true, 3
		}
	}
	m := newMachineEnv(t, p, topology.Uniform(1, 1, 1, 3, 1), 1000, 1, func(e *fakeEnv) sched.Env {
		e.explaining = mode == envExplained
		if mode == envSet {
			return &setEnv{fakeEnv: e}
		}
		return e
	})
	next := sched.ID(0)
	i := 1
	arg := func() int {
		if i >= len(ops) {
			return 0
		}
		i++
		return int(ops[i-1])
	}
	pickThread := func() (*Thread, bool) {
		if next == 0 {
			return nil, false
		}
		return m.s.Thread(sched.ID(arg()) % next)
	}
	attr := func() sched.Attr {
		b := arg()
		a := sched.Attr{Nice: b%41 - 20}
		switch b % 7 {
		case 5:
			a.Class, a.RTPrio = sched.RR, 1+b%31
		case 6:
			a.Class = sched.Idle
		}
		if mask := arg() % 8; mask != 0 {
			for c := range topology.CPU(3) {
				if mask&(1<<c) != 0 {
					a.Affinity.Add(c)
				}
			}
		}
		return a
	}
	for i < len(ops) && m.tick < 2000 {
		m.env.calls = append(m.env.calls, snapshot(m.s))
		op := ops[i]
		i++
		switch op % 10 {
		case 0:
			if next < 12 {
				parent := sched.ID(-1)
				if next > 0 {
					parent = sched.ID(arg()) % next
				}
				if _, ok := m.s.Thread(parent); !ok {
					parent = -1 // a parent must exist (it is the thread that forks)
				}
				m.s.Fork(m.now(), next, parent, 0, attr())
				next++
			}
		case 1:
			if th, ok := pickThread(); ok && (th.State() == Created || th.State() == Sleeping) {
				flags := sched.WakeFlags(0)
				if th.State() == Created {
					flags = sched.WakeFork
				}
				m.s.Wakeup(m.now(), th.ID, topology.CPU(arg()%3), flags)
				m.settle()
			}
		case 2:
			m.step()
		case 3, 4, 5:
			c := topology.CPU(arg() % 3)
			if id := m.running[c]; id >= 0 {
				why := [...]sched.StopReason{sched.Sleep, sched.Yield, sched.Exit}[op%10-3]
				m.endRun(id)
				m.s.Stop(m.now(), c, id, why)
				m.running[c] = -1
				m.pick(c)
				m.settle()
			}
		case 6:
			if th, ok := pickThread(); ok {
				m.s.SetAttr(m.now(), th.ID, attr())
				m.settle()
			}
		case 7:
			if th, ok := pickThread(); ok {
				if b := arg(); b%4 == 3 {
					m.s.Unbind(m.now(), th.ID)
				} else {
					m.s.Bind(m.now(), th.ID, topology.CPU(b%3))
				}
				m.settle()
			}
		case 8:
			m.run(secondTicks)
		case 9:
			m.s.SchedCPU()
			m.settle()
		}
	}
	return m.env.calls
}
