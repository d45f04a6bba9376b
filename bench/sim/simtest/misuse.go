package simtest

// This file implements CheckMisuse, the one list of contract breaches every policy must refuse
// the same way.

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A misuse is one breach of the Policy contract by a machine and what a policy must do about
// it: panic with a message that starts with the policy's package name and contains want, or,
// for Start, return an error that does.
type misuse struct {
	name string
	// call breaches the contract on p, started on two CPUs, in which thread 0 runs on
	// m.busy, thread 1 was forked and never woken, and the machine's time is m.now.
	call func(p sched.Policy, m *misuseMachine) error
	want string
}

// misuseMachine is the state a misuse starts from.
type misuseMachine struct {
	busy, idle topology.CPU // the CPU running thread 0, the other one
	now        int64
}

// misuses are the breaches of the contract every policy refuses (issue 28's list): each a
// named panic, or an error where the contract's method returns one.
var misuses = []misuse{
	{"second Start", func(p sched.Policy, m *misuseMachine) error {
		return p.Start(sched.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Hz: 1000}, nopEnv{})
	}, "Start called twice"},
	{"Pick on a busy CPU", func(p sched.Policy, m *misuseMachine) error {
		p.Pick(m.now, m.busy)
		return nil
	}, "Pick on cpu"},
	{"Pick outside the machine", func(p sched.Policy, m *misuseMachine) error {
		p.Pick(m.now, 7)
		return nil
	}, "Pick on cpu7, which is not in the machine"},
	{"Tick outside the machine", func(p sched.Policy, m *misuseMachine) error {
		p.Tick(m.now, topology.MaxCPUs)
		return nil
	}, "Tick on cpu1024, which is not in the machine"},
	{"Wakeup from outside the machine", func(p sched.Policy, m *misuseMachine) error {
		p.Wakeup(m.now, 1, 9, sched.WakeFork)
		return nil
	}, "Wakeup on cpu9, which is not in the machine"},
	{"Fork outside the machine", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, 5, -1, 3, sched.Attr{})
		return nil
	}, "Fork on cpu3, which is not in the machine"},
	{"Stop outside the machine", func(p sched.Policy, m *misuseMachine) error {
		p.Stop(m.now, 5, 0, sched.Preempt)
		return nil
	}, "Stop on cpu5, which is not in the machine"},
	{"Stop on the wrong CPU", func(p sched.Policy, m *misuseMachine) error {
		p.Stop(m.now, m.idle, 0, sched.Preempt)
		return nil
	}, "Stop of t0, which"},
	{"Stop with an unknown reason", func(p sched.Policy, m *misuseMachine) error {
		p.Stop(m.now, m.busy, 0, sched.StopReason(99))
		return nil
	}, "Stop of t0 with unknown reason 99"},
	{"Stop(Sleep) of a thread that never ran", func(p sched.Policy, m *misuseMachine) error {
		p.Wakeup(m.now, 1, m.busy, sched.WakeFork)
		p.Stop(m.now, m.busy, 1, sched.Sleep)
		return nil
	}, "Stop of t1, which"},
	{"Stop of an unknown thread", func(p sched.Policy, m *misuseMachine) error {
		p.Stop(m.now, m.busy, 9, sched.Sleep)
		return nil
	}, "Stop of unknown thread t9"},
	{"Wakeup of an unknown thread", func(p sched.Policy, m *misuseMachine) error {
		p.Wakeup(m.now, 9, m.busy, 0)
		return nil
	}, "Wakeup of unknown thread t9"},
	{"Wakeup of a running thread", func(p sched.Policy, m *misuseMachine) error {
		p.Wakeup(m.now, 0, m.busy, 0)
		return nil
	}, "Wakeup of"},
	{"Wakeup with unknown flags", func(p sched.Policy, m *misuseMachine) error {
		p.Wakeup(m.now, 1, m.busy, sched.WakeFork|0x40)
		return nil
	}, "Wakeup of t1 with unknown flags 0x41"},
	{"SetAttr of an unknown thread", func(p sched.Policy, m *misuseMachine) error {
		p.SetAttr(m.now, 9, sched.Attr{})
		return nil
	}, "SetAttr of unknown thread t9"},
	{"Fork of an existing thread", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, 1, -1, m.busy, sched.Attr{})
		return nil
	}, "Fork of thread t1, which exists"},
	{"Fork of a negative thread ID", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, -2, -1, m.busy, sched.Attr{})
		return nil
	}, "Fork of negative thread id -2"},
	{"Fork by an unknown parent", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, 5, 9, m.busy, sched.Attr{})
		return nil
	}, "Fork of t5 by unknown parent t9"},
	{"Fork with nice 100", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, 5, -1, m.busy, sched.Attr{Nice: 100})
		return nil
	}, "Fork of t5 with invalid attributes: sched: nice 100 outside -20..20"},
	{"Fork with class 99", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, 5, -1, m.busy, sched.Attr{Class: 99})
		return nil
	}, "Fork of t5 with invalid attributes: sched: invalid class 99"},
	{"Fork with slice -1", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, 5, -1, m.busy, sched.Attr{Slice: -1})
		return nil
	}, "Fork of t5 with invalid attributes: sched: negative slice -1"},
	{"Fork with an affinity outside the machine", func(p sched.Policy, m *misuseMachine) error {
		p.Fork(m.now, 5, -1, m.busy, sched.Attr{Affinity: topology.CPUSetOf(9)})
		return nil
	}, "Fork of t5 with affinity 9, which holds no CPU of the machine"},
	{"SetAttr with nice 100", func(p sched.Policy, m *misuseMachine) error {
		p.SetAttr(m.now, 0, sched.Attr{Nice: 100})
		return nil
	}, "SetAttr of t0 with invalid attributes: sched: nice 100 outside -20..20"},
	{"SetAttr with an affinity outside the machine", func(p sched.Policy, m *misuseMachine) error {
		p.SetAttr(m.now, 0, sched.Attr{Affinity: topology.CPUSetOf(5, 6)})
		return nil
	}, "SetAttr of t0 with affinity 5-6, which holds no CPU of the machine"},
	{"Tick going back in time", func(p sched.Policy, m *misuseMachine) error {
		p.Tick(m.now-1, m.busy)
		return nil
	}, "Tick at 999999, before the machine's time 1000000"},
	{"Wakeup going back in time", func(p sched.Policy, m *misuseMachine) error {
		p.Wakeup(0, 1, m.busy, sched.WakeFork)
		return nil
	}, "Wakeup at 0, before the machine's time 1000000"},
}

// nopEnv is a sched.Env that does nothing.
type nopEnv struct{}

func (nopEnv) Resched(topology.CPU)                   {}
func (nopEnv) Explaining() bool                       { return false }
func (nopEnv) Explain(topology.CPU, sched.ID, string) {}

// CheckMisuse runs the list of contract breaches every policy must refuse the same way (a
// second Start, a Pick on a busy CPU, a Stop on the wrong CPU or with an unknown reason, a Stop
// of a thread that never ran, attributes out of range, an affinity outside the machine, an
// unknown parent, time going backwards, unknown wake-up flags, and the rest of the list in this
// file) on a fresh policy from newPolicy for each, checking that each panics, or returns an
// error, with a message that starts with pkg and a colon and says what was wrong. It also checks
// what the contract accepts: a stathz above hz (FreeBSD's one-shot event timers run stathz at
// 127 whatever hz is), a clock interrupt at the end of time, which must return, and a thread ID
// of 2³¹−1, which must cost no more memory than any other.
func CheckMisuse(t *testing.T, pkg string, newPolicy func() sched.Policy) {
	t.Helper()
	prefix := pkg + ": "
	start := func(t *testing.T) (sched.Policy, *misuseMachine) {
		t.Helper()
		p := newPolicy()
		if err := p.Start(sched.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Hz: 1000, StatHz: 127, Seed: 1}, nopEnv{}); err != nil {
			t.Fatal(err)
		}
		p.Fork(0, 0, -1, 0, sched.Attr{})
		p.Wakeup(0, 0, 0, sched.WakeFork)
		m := &misuseMachine{busy: 0, idle: 1, now: 1_000_000}
		if id, ok := p.Pick(0, 0); !ok || id != 0 {
			if id, ok = p.Pick(0, 1); !ok || id != 0 {
				t.Fatalf("%s: neither CPU picks the only thread", pkg)
			}
			m.busy, m.idle = 1, 0
		}
		p.Fork(0, 1, -1, m.busy, sched.Attr{})
		p.Tick(m.now, m.busy)
		return p, m
	}
	for _, mu := range misuses {
		t.Run(mu.name, func(t *testing.T) {
			p, m := start(t)
			var err error
			msg := panicText(func() { err = mu.call(p, m) })
			if msg == "" && err != nil {
				msg = err.Error()
			}
			if !strings.HasPrefix(msg, prefix) || !strings.Contains(msg, mu.want) {
				t.Errorf("%s: got %q, want a panic or error starting %q and containing %q", mu.name, msg, prefix, mu.want)
			}
		})
	}
	t.Run("Start refusals", func(t *testing.T) { checkStartRefusals(t, prefix, newPolicy) })
	t.Run("calls before Start", func(t *testing.T) {
		p := newPolicy()
		if msg := panicText(func() { p.Pick(0, 0) }); msg != prefix+"Pick before Start" {
			t.Errorf("Pick before Start: got %q, want %q", msg, prefix+"Pick before Start")
		}
	})
	t.Run("Tick at the end of time", func(t *testing.T) { checkEndOfTime(t, start) })
	t.Run("a thread ID of 2^31-1", func(t *testing.T) { checkFarID(t, start) })
}

// checkStartRefusals is CheckMisuse's check of Start: no Env, a rate above sched.MaxHz and no
// topology are errors; a stathz above hz is not.
func checkStartRefusals(t *testing.T, prefix string, newPolicy func() sched.Policy) {
	topo := topology.Uniform(1, 1, 1, 2, 1)
	for _, c := range []struct {
		cfg sched.Config
		env sched.Env
	}{
		{sched.Config{Topology: topo, Hz: 1000}, nil},
		{sched.Config{Topology: topo, Hz: sched.MaxHz + 1}, nopEnv{}},
		{sched.Config{Hz: 1000}, nopEnv{}},
	} {
		if err := newPolicy().Start(c.cfg, c.env); err == nil || !strings.HasPrefix(err.Error(), prefix) && !strings.HasPrefix(err.Error(), "sched: ") {
			t.Errorf("Start(%+v, env %v) = %v, want an error", c.cfg, c.env, err)
		}
	}
	if err := newPolicy().Start(sched.Config{Topology: topo, Hz: 100, StatHz: 127}, nopEnv{}); err != nil {
		t.Errorf("Start with hz 100 and stathz 127 (FreeBSD's one-shot timers) = %v, want nil", err)
	}
}

// checkEndOfTime is CheckMisuse's check that a clock interrupt at the end of time returns.
func checkEndOfTime(t *testing.T, start func(*testing.T) (sched.Policy, *misuseMachine)) {
	p, m := start(t)
	done := make(chan string, 1)
	go func() {
		done <- panicText(func() {
			p.Tick(math.MaxInt64, m.busy)
			p.Tick(math.MaxInt64, m.idle)
			p.Tick(math.MaxInt64, m.busy)
		})
	}()
	select {
	case msg := <-done:
		if msg != "" {
			t.Errorf("Tick(math.MaxInt64): panic %q", msg)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("Tick(math.MaxInt64) has not returned after 20 s")
	}
}

// checkFarID is CheckMisuse's check that thread 2^31-1 costs no more memory than any other
// and runs.
func checkFarID(t *testing.T, start func(*testing.T) (sched.Policy, *misuseMachine)) {
	p, m := start(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p.Fork(m.now, math.MaxInt32, 0, m.busy, sched.Attr{})
	p.Wakeup(m.now, math.MaxInt32, m.busy, sched.WakeFork)
	runtime.GC()
	runtime.ReadMemStats(&after)
	// A table indexed by thread ID would need 16 GiB for this thread; the bound leaves room
	// for whatever other tests running in parallel allocate meanwhile.
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 64<<20 {
		t.Errorf("Fork of thread 2^31-1 grew the heap by %d bytes", grew)
	}
	// Every other thread sleeps as soon as it runs, until a CPU picks thread 2^31-1.
	running := map[topology.CPU]sched.ID{m.busy: 0}
	for range 8 {
		for _, c := range []topology.CPU{m.busy, m.idle} {
			if id, ok := running[c]; ok {
				p.Stop(m.now, c, id, sched.Sleep)
				delete(running, c)
			}
			if id, ok := p.Pick(m.now, c); ok {
				if id == math.MaxInt32 {
					return
				}
				running[c] = id
			}
		}
	}
	t.Errorf("thread 2^31-1 was never picked")
}

// panicText runs f and returns what it panicked with, formatted, or "" if it returned.
func panicText(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}
