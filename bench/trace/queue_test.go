package trace

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// naiveNextCPU is the model of runQueues.nextCPU: a scan from record i on.
func naiveNextCPU(t *sim.Trace, x sched.ID, i int) (topology.CPU, bool) {
	for j := i + 1; j < len(t.Records); j++ {
		if r := t.Records[j]; r.Kind == sim.KindSwitch && r.Thread == x {
			return r.CPU, true
		}
	}
	return sim.NoCPU, false
}

// traceFromBytes decodes ops into a trace: each byte picks a thread, a CPU and whether it
// switches in there (ending the current thread's run) or is woken.
func traceFromBytes(ops []byte) *sim.Trace {
	tr := &sim.Trace{}
	for i := range 5 {
		tr.Threads = append(tr.Threads, sim.ThreadInfo{Name: itoa(i), Parent: -1})
	}
	cur := [3]sched.ID{-1, -1, -1}
	for k, b := range ops {
		x, c := sched.ID(b%5), topology.CPU(b/5%3)
		r := sim.Record{Time: int64(k), CPU: c, Thread: x}
		if b&0x80 != 0 {
			r.Kind, r.Other = sim.KindWakeup, -1
		} else {
			r.Kind, r.Other, r.Arg = sim.KindSwitch, int32(cur[c]), uint8(sched.Preempt)
			for d := range cur {
				if cur[d] == x {
					cur[d] = -1
				}
			}
			cur[c] = x
		}
		tr.Records = append(tr.Records, r)
	}
	return tr
}

// checkRunQueues compares every look-ahead answer with the model's, and the queue counts
// with a recount.
func checkRunQueues(t *testing.T, tr *sim.Trace) {
	q := newRunQueues(tr, 3)
	for i, r := range tr.Records {
		if r.Kind == sim.KindWakeup {
			got, ok := q.nextCPU(r.Thread, i)
			want, wok := naiveNextCPU(tr, r.Thread, i)
			if got != want || ok != wok {
				t.Fatalf("record %d: nextCPU(%d) = %d, %t; the scan says %d, %t", i, r.Thread, got, ok, want, wok)
			}
			q.runnable(r.Thread, i, r.CPU)
		} else {
			q.running(r.Thread, r.CPU)
		}
		var n [3]int
		for _, w := range q.waitOn {
			if w != sim.NoCPU {
				n[w]++
			}
		}
		for c := range n {
			if n[c] != q.queued[c] {
				t.Fatalf("record %d: queued[%d] = %d, %d threads wait on it", i, c, q.queued[c], n[c])
			}
		}
		if q.held < 0 || q.held > MaxLookahead {
			t.Fatalf("record %d: held = %d", i, q.held)
		}
	}
}

func FuzzRunQueues(f *testing.F) {
	f.Add([]byte{0, 0x81, 6, 0x82, 1, 12, 2})
	f.Add([]byte{0x80, 0x81, 0x82, 0, 1, 2, 3, 4, 5, 6, 7})
	f.Fuzz(func(t *testing.T, ops []byte) { checkRunQueues(t, traceFromBytes(ops)) })
}

// TestRunQueuesLookaheadBound checks the fallback past MaxLookahead: a thread woken while more
// than MaxLookahead switches happen before it runs is queued on the CPU it last ran on.
func TestRunQueuesLookaheadBound(t *testing.T) {
	tr := &sim.Trace{Threads: []sim.ThreadInfo{{Name: "a"}, {Name: "b"}, {Name: "starved"}}}
	add := func(r sim.Record) { tr.Records = append(tr.Records, r) }
	add(sim.Record{Kind: sim.KindSwitch, CPU: 1, Thread: 2, Other: -1})
	add(sim.Record{Kind: sim.KindSwitch, CPU: 1, Thread: -1, Other: 2, Arg: uint8(sched.Sleep)})
	add(sim.Record{Kind: sim.KindWakeup, CPU: 0, Thread: 2, Other: -1})
	for k := range MaxLookahead + 10 {
		add(sim.Record{Kind: sim.KindSwitch, CPU: 0, Thread: sched.ID(k % 2), Other: int32((k + 1) % 2)})
	}
	add(sim.Record{Kind: sim.KindSwitch, CPU: 0, Thread: 2, Other: 1})
	q := newRunQueues(tr, 2)
	q.running(2, 1)
	if c, ok := q.nextCPU(2, 2); ok {
		t.Fatalf("nextCPU past the bound = %d, true; want false", c)
	}
	if c := q.runnable(2, 2, 0); c != 1 {
		t.Errorf("runnable past the bound queues on %d, want 1 (the CPU it last ran on)", c)
	}
	if q.held > MaxLookahead {
		t.Errorf("held = %d > MaxLookahead", q.held)
	}
}
