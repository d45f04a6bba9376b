package sim

import (
	"testing"

	"github.com/schedkit/schedkit/sched"
)

func TestTraceFormat(t *testing.T) {
	tr := newTrace(TraceFull)
	tr.addThread(ThreadInfo{Name: "a", Parent: -1})
	tr.addThread(ThreadInfo{Name: "b", Parent: 0, Attr: sched.Attr{Nice: 3}})
	why := tr.addString("because")
	cases := []struct {
		r    Record
		want string
	}{
		{Record{Time: 1_500_000_000, Kind: KindFork, CPU: 2, Thread: 1, Other: 0}, "1.500000000 cpu2 fork b by a"},
		{Record{Kind: KindWakeup, CPU: 0, Thread: 1, Other: -1}, "0.000000000 cpu0 wakeup b by timer"},
		{Record{Kind: KindWakeup, CPU: 0, Thread: 1, Other: 0, Arg: uint8(sched.WakeSync)}, "0.000000000 cpu0 wakeup b by a sync"},
		{Record{Kind: KindSwitch, CPU: 1, Thread: -1, Other: 1, Arg: uint8(sched.Exit)}, "0.000000000 cpu1 switch b -> idle (exit)"},
		{Record{Kind: KindMigrate, CPU: 1, Thread: 0, Other: 3}, "0.000000000 cpu1 migrate a from cpu3"},
		{Record{Kind: KindResched, CPU: 3, Thread: 0, Other: 1, Arg: uint8(CallTick)}, "0.000000000 cpu3 resched from cpu1 in tick"},
		{Record{Kind: KindIPI, CPU: 3, Thread: -1, Other: int32(NoCPU)}, "0.000000000 cpu3 ipi from -"},
		{Record{Kind: KindExit, CPU: NoCPU, Thread: 0, Other: -1}, "0.000000000 - exit a"},
		{Record{Kind: KindSetAttr, CPU: 0, Thread: 1, Other: int32(-2+64) | int32(sched.RR)<<8 | 7<<16}, "0.000000000 cpu0 setattr b class=rr nice=-2 rtprio=7"},
		{Record{Kind: KindExplain, CPU: 0, Thread: -1, Other: why, Arg: uint8(CallPick)}, "0.000000000 cpu0 explain - in pick: because"},
		{Record{Kind: KindViolation, CPU: 0, Thread: 1, Other: -1, Arg: uint8(Starvation)}, "0.000000000 cpu0 violation starvation b"},
	}
	for _, tc := range cases {
		if got := tr.Format(tc.r); got != tc.want {
			t.Errorf("Format(%+v) = %q, want %q", tc.r, got, tc.want)
		}
	}
	if s := Kind(99).String(); s != "kind(99)" {
		t.Errorf("Kind(99).String() = %q", s)
	}
	if s := Call(99).String(); s != "call(99)" {
		t.Errorf("Call(99).String() = %q", s)
	}
	if s := Invariant(9).String(); s != "invariant(9)" {
		t.Errorf("Invariant(9).String() = %q", s)
	}
}

// TestTraceHash checks that the hash depends on every field of a record and on its order.
func TestTraceHash(t *testing.T) {
	base := Record{Time: 5, Kind: KindSwitch, Arg: 1, CPU: 2, Thread: 3, Other: 4}
	hashOf := func(rs ...Record) uint64 {
		tr := newTrace(TraceHash)
		for _, r := range rs {
			tr.add(r)
		}
		return tr.Hash()
	}
	h := hashOf(base)
	for i, r := range []Record{
		{Time: 6, Kind: KindSwitch, Arg: 1, CPU: 2, Thread: 3, Other: 4},
		{Time: 5, Kind: KindWakeup, Arg: 1, CPU: 2, Thread: 3, Other: 4},
		{Time: 5, Kind: KindSwitch, Arg: 2, CPU: 2, Thread: 3, Other: 4},
		{Time: 5, Kind: KindSwitch, Arg: 1, CPU: 3, Thread: 3, Other: 4},
		{Time: 5, Kind: KindSwitch, Arg: 1, CPU: 2, Thread: 4, Other: 4},
		{Time: 5, Kind: KindSwitch, Arg: 1, CPU: 2, Thread: 3, Other: 5},
	} {
		if hashOf(r) == h {
			t.Errorf("change %d does not change the hash", i)
		}
	}
	other := Record{Time: 7}
	if hashOf(base, other) == hashOf(other, base) {
		t.Error("the hash does not depend on the order of records")
	}
	if tr := newTrace(TraceHash); len(tr.Records) != 0 || tr.Len() != 0 {
		t.Error("a new trace is not empty")
	}
	if newTrace(TraceOff) != nil {
		t.Error("TraceOff makes a trace")
	}
}
