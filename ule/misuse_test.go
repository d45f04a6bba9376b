package ule

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// panicMessage runs f and returns the message it panicked with, or "" if it returned.
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// The machine's bugs panic with a message that starts with "ule: " and says what was wrong.
// Each case starts from two CPUs (cpu0 runs t0, t1 sleeps after running on cpu1).
func TestSchedulerMisuse(t *testing.T) {
	setup := func(t *testing.T) *testMachine {
		m := newTestMachine(t, DefaultParams(), topology.Uniform(1, 1, 1, 2, 1))
		m.fork(0, 0, sched.Attr{})
		m.fork(1, 1, sched.Attr{})
		m.sleep(1)
		return m
	}
	const outside = topology.CPU(7)
	for _, tc := range []struct {
		name string
		f    func(m *testMachine)
		want string
	}{
		{"Pick outside the machine", func(m *testMachine) { m.s.Pick(m.now, outside) }, "ule: Pick on cpu7, which is not in the machine"},
		{"Pick beyond MaxCPUs", func(m *testMachine) { m.s.Pick(m.now, topology.MaxCPUs+3) }, "ule: Pick on cpu1027, which is not in the machine"},
		{"Pick on a busy CPU", func(m *testMachine) { m.s.Pick(m.now, 0) }, "ule: Pick on cpu0, which runs t0"},
		{"Tick outside the machine", func(m *testMachine) { m.s.Tick(m.now, outside) }, "ule: Tick on cpu7, which is not in the machine"},
		{"Fork outside the machine", func(m *testMachine) { m.s.Fork(m.now, 5, -1, outside, sched.Attr{}) }, "ule: Fork on cpu7, which is not in the machine"},
		{"Fork of an existing thread", func(m *testMachine) { m.s.Fork(m.now, 0, -1, 0, sched.Attr{}) }, "ule: Fork of thread t0, which exists"},
		{"Fork of a negative id", func(m *testMachine) { m.s.Fork(m.now, -2, -1, 0, sched.Attr{}) }, "ule: Fork of negative thread id -2"},
		{"Fork with invalid attributes", func(m *testMachine) { m.s.Fork(m.now, 5, -1, 0, sched.Attr{Nice: 40}) }, "ule: Fork of t5 with invalid attributes: sched: nice 40 outside -20..20"},
		{"Wakeup from outside the machine", func(m *testMachine) { m.s.Wakeup(m.now, 1, outside, 0) }, "ule: Wakeup on cpu7, which is not in the machine"},
		{"double Wakeup", func(m *testMachine) {
			m.s.Wakeup(m.now, 1, 0, 0)
			m.s.Wakeup(m.now, 1, 0, 0)
		}, "ule: Wakeup of t1, which is already on a run queue"},
		{"Wakeup of a running thread", func(m *testMachine) { m.s.Wakeup(m.now, 0, 0, 0) }, "ule: Wakeup of t0, which is running on cpu0"},
		{"Wakeup of an unknown thread", func(m *testMachine) { m.s.Wakeup(m.now, 9, 0, 0) }, "ule: Wakeup of unknown thread t9"},
		{"Stop outside the machine", func(m *testMachine) { m.s.Stop(m.now, outside, 0, sched.Sleep) }, "ule: Stop on cpu7, which is not in the machine"},
		{"Stop of a thread not running there", func(m *testMachine) { m.s.Stop(m.now, 1, 0, sched.Sleep) }, "ule: Stop of t0, which is not running on cpu1"},
		{"Stop with an unknown reason", func(m *testMachine) { m.s.Stop(m.now, 0, 0, sched.StopReason(9)) }, "ule: Stop of t0 with unknown reason 9"},
		{"SetAttr of an unknown thread", func(m *testMachine) { m.s.SetAttr(m.now, 9, sched.Attr{}) }, "ule: SetAttr of unknown thread t9"},
		{"SetAttr with invalid attributes", func(m *testMachine) {
			m.s.SetAttr(m.now, 1, sched.Attr{Class: sched.FIFO, RTPrio: 40, RTScale: sched.RTFreeBSD})
		}, "ule: SetAttr of t1 with invalid attributes: sched: fifo priority 40 outside 0..31 (freebsd scale)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := setup(t)
			got := panicMessage(func() { tc.f(m) })
			if got != tc.want {
				t.Errorf("panic = %q, want %q", got, tc.want)
			}
		})
	}
	s := mustNew(t, DefaultParams())
	if got := panicMessage(func() { s.Pick(0, 0) }); got != "ule: Pick before Start" {
		t.Errorf("Pick before Start: panic = %q", got)
	}
}

// CheckAttr accepts what FreeBSD offers and refuses the rest, naming it; what is run anyway
// is reported by Err.
func TestSchedulerCheckAttr(t *testing.T) {
	s := mustNew(t, LegacyParams())
	for _, tc := range []struct {
		a    sched.Attr
		want string // "" for accepted
	}{
		{sched.Attr{}, ""},
		{sched.Attr{Nice: 20}, ""},
		{sched.Attr{Class: sched.Idle}, ""},
		{sched.Attr{Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD}, ""},
		{sched.Attr{Class: sched.RR, RTPrio: 31, RTScale: sched.RTFreeBSD}, ""},
		{sched.Attr{Affinity: topology.CPUSetOf(1)}, ""},
		{sched.Attr{Class: sched.FIFO, RTPrio: 50}, "ule: fifo priority 50 is on the linux scale; FreeBSD's rtprio(2) takes 0..31 (RTScale freebsd)"},
		{sched.Attr{Class: sched.Batch}, "ule: FreeBSD has no SCHED_BATCH class"},
		{sched.Attr{Slice: 3e6}, "ule: a requested slice (3000000 ns) has no ULE equivalent"},
		{sched.Attr{Group: 2}, "ule: no group scheduling in ULE (group 2)"},
		{sched.Attr{Nice: -21}, "ule: sched: nice -21 outside -20..20"},
	} {
		got := ""
		if err := s.CheckAttr(tc.a); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckAttr(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}

	m := newTestMachine(t, LegacyParams(), topology.Uniform(1, 1, 1, 2, 1))
	m.fork(0, 0, sched.Attr{Class: sched.FIFO, RTPrio: 3, RTScale: sched.RTFreeBSD})
	if err := m.s.Err(); err != nil {
		t.Fatalf("Err after an accepted fork = %v", err)
	}
	m.fork(1, 1, sched.Attr{Class: sched.Batch})
	m.fork(2, 1, sched.Attr{Group: 3})
	err := m.s.Err()
	if err == nil || !strings.HasPrefix(err.Error(), "thread t1 ran otherwise than asked: ule: FreeBSD has no SCHED_BATCH") {
		t.Fatalf("Err = %v, want the first refusal, t1's", err)
	}
	if !errors.Is(err, errors.Unwrap(err)) {
		t.Errorf("Err does not wrap the CheckAttr error: %v", err)
	}
	if c := m.s.thread(1).Class; c != ClassTimeshare {
		t.Errorf("a SCHED_BATCH thread runs in class %v, want time sharing", c)
	}
}

// rtprio(2) levels map to PRI_MIN_REALTIME + level (kern_resource.c rtp_to_pri): in main each
// level has its own queue (8..39); in legacy the 64-queue fold puts four levels in one queue
// (16..19 in queue 4 and so on), seed 003's conflation of POSIX levels.
func TestSchedulerRTPrio(t *testing.T) {
	for _, tc := range []struct {
		p         Params
		level     int
		wantPri   uint8
		wantQueue uint8
	}{
		{DefaultParams(), 0, 8, 8},
		{DefaultParams(), 1, 9, 9},
		{DefaultParams(), 31, 39, 39},
		{LegacyParams(), 0, 16, 4},
		{LegacyParams(), 3, 19, 4},
		{LegacyParams(), 4, 20, 5},
		{LegacyParams(), 31, 47, 11},
	} {
		m := newTestMachine(t, tc.p, topology.Uniform(1, 1, 1, 1, 1))
		m.fork(0, 0, sched.Attr{Class: sched.RR, RTPrio: 0, RTScale: sched.RTFreeBSD}) // runs
		m.fork(1, 0, sched.Attr{Class: sched.RR, RTPrio: tc.level, RTScale: sched.RTFreeBSD})
		th := m.s.thread(1)
		q, queued := th.Index()
		if th.Priority != tc.wantPri || !queued || uint8(q) != tc.wantQueue {
			t.Errorf("%s rtprio %d: priority %d in queue %d (queued %t), want %d in %d", tc.p.Version, tc.level, th.Priority, q, queued, tc.wantPri, tc.wantQueue)
		}
	}
}
