package cfs

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// refCheckPreempt is check_preempt_wakeup of v6.5 as RunQueue.checkPreempt once did it, the
// model of the one-pass checkPreemptWakeup: decide with the pure [CheckPreemptWakeup]; if
// the decision reached the vruntime comparison, charge the running side's queue (update_curr)
// and decide again; then mark the buddies and need-resched.
func refCheckPreempt(c *RunQueue, t *Entity, now uint64, fork bool) (WakeupDecision, WakeupReason) {
	d, r := CheckPreemptWakeup(c, t, fork, &c.params)
	if r == WakeupLeadTooSmall || r == WakeupLead {
		d.Curr.q.updateCurr(now, &c.params)
		d, r = CheckPreemptWakeup(c, t, fork, &c.params)
	}
	if d.NextBuddy != nil {
		setNextBuddy(d.NextBuddy)
	}
	if d.LastBuddy != nil {
		setLastBuddy(d.LastBuddy)
	}
	if d.Preempt {
		c.needResched = true
	}
	return d, r
}

// twinCPU is one of two v6.5 CPUs driven by the same operations: three groups (one idle, one
// nested) and eight tasks of mixed classes and nice levels.
type twinCPU struct {
	c      *RunQueue
	groups []*Group
	tasks  []*Entity
}

func newTwinCPU(p Params) *twinCPU {
	ga := NewGroup("ga", nil, 1)
	gi := NewGroup("gi", nil, 1)
	gi.SetIdle(true)
	gn := NewGroup("gn", ga, 1)
	w := &twinCPU{c: NewRunQueue(0, p), groups: []*Group{nil, ga, gi, gn}}
	for i, nice := range []int{0, 5, -3, 0, -10, 19, 0, 2} {
		class := Normal
		switch i {
		case 2:
			class = Batch
		case 3:
			class = Idle
		}
		w.tasks = append(w.tasks, NewTask(fmt.Sprintf("t%d", i), class, nice))
	}
	return w
}

// state describes everything the wakeup-preemption check may change or read: each task's run
// time, vruntime and queue membership, each queue's min_vruntime and buddies, need-resched.
func (w *twinCPU) state() string {
	var b strings.Builder
	name := func(e *Entity) string {
		if e == nil {
			return "-"
		}
		return e.String()
	}
	fmt.Fprintf(&b, "resched %t curr %s root min %d next %s last %s;", w.c.needResched, name(w.c.curr),
		w.c.root.minVruntime, name(w.c.root.next), name(w.c.root.last))
	for _, t := range w.tasks {
		fmt.Fprintf(&b, " %s %d/%d/%d/%t", t, t.ExecStart, t.SumExecRuntime, t.Vruntime, t.onRQ)
	}
	for _, g := range w.groups[1:] {
		q := &g.cpus[0].q
		fmt.Fprintf(&b, " %s:%d/%s/%s", g.name, q.minVruntime, name(q.next), name(q.last))
	}
	return b.String()
}

// TestCheckPreemptOnePass drives two v6.5 CPUs through the same random operations (forks,
// wakeups, sleeps, ticks, picks, renices, yields, time passing), with NEXT_BUDDY, LAST_BUDDY
// and a small sched_nr_latency on or off, and at every wakeup or fork of a sleeping task has one
// CPU enqueue it and judge preemption with checkPreempt and the other with refCheckPreempt:
// the decisions, their reasons and the states they leave must be the same.
func TestCheckPreemptOnePass(t *testing.T) {
	checked, compared := 0, 0
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 23))
		p := DefaultParams()
		p.NextBuddy = r.IntN(2) == 0
		p.LastBuddy = r.IntN(2) == 0
		if r.IntN(2) == 0 {
			p.NrLatency = 2
		}
		a, b := newTwinCPU(p), newTwinCPU(p)
		started := make([]bool, len(a.tasks))
		now := uint64(1)
		for range 1500 {
			now += uint64(r.IntN(40)) * 50_000
			k := r.IntN(len(a.tasks))
			ta, tb := a.tasks[k], b.tasks[k]
			switch op := r.IntN(8); {
			case op <= 2: // wake (or first start) a sleeping task, judged both ways
				if ta.onRQ {
					continue
				}
				if !started[k] {
					g := r.IntN(len(a.groups))
					ta.SetGroup(a.groups[g])
					tb.SetGroup(b.groups[g])
					started[k] = true
				}
				fork := r.IntN(4) == 0
				a.c.attach(ta)
				a.c.enqueueTask(ta, now, flagWakeup)
				b.c.attach(tb)
				b.c.enqueueTask(tb, now, flagWakeup)
				da, ra := a.c.checkPreempt(ta, now, fork)
				db, rb := refCheckPreempt(b.c, tb, now, fork)
				if ra != rb || fmt.Sprint(da) != fmt.Sprint(db) {
					t.Fatalf("seed %d: wakeup of %v: one pass %v %+v, reference %v %+v", seed, ta, ra, da, rb, db)
				}
				checked++
				if ra == WakeupLead || ra == WakeupLeadTooSmall {
					compared++
				}
			case op == 3: // sleep
				if !ta.onRQ {
					continue
				}
				a.c.Sleep(ta, now)
				b.c.Sleep(tb, now)
			case op == 4:
				a.c.Tick(now)
				b.c.Tick(now)
			case op == 5:
				a.c.Schedule(now)
				b.c.Schedule(now)
			case op == 6:
				if started[k] {
					n := r.IntN(40) - 20
					a.c.SetNice(ta, n, now)
					b.c.SetNice(tb, n, now)
				}
			default:
				a.c.Yield(now)
				b.c.Yield(now)
			}
			if sa, sb := a.state(), b.state(); sa != sb {
				t.Fatalf("seed %d: states differ:\n one pass  %s\n reference %s", seed, sa, sb)
			}
			if a.c.needResched && r.IntN(2) == 0 {
				a.c.Schedule(now)
				b.c.Schedule(now)
			}
		}
	}
	if checked < 5000 || compared < 2000 {
		t.Errorf("only %d wakeups judged, %d by their vruntimes", checked, compared)
	}
}
