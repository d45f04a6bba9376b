package cfs

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// refCheckPreempt is check_preempt_wakeup as RunQueue.checkPreempt once did it, the model of
// the one-pass checkPreemptWakeup and checkPreemptWakeupEEVDF: decide with the pure
// [CheckPreemptWakeup]; if the decision reached the vruntime comparison (or EEVDF's pick),
// charge the running side's queue (update_curr) and decide again; then mark the buddies and
// need-resched (and, under EEVDF, the rest of checkPreemptEEVDF's changes).
func refCheckPreempt(c *RunQueue, t *Entity, now uint64, fork bool) (WakeupDecision, WakeupReason) {
	if c.params.Version.EEVDF() {
		return refCheckPreemptEEVDF(c, t, now, fork)
	}
	d, r := CheckPreemptWakeup(c, t, fork, &c.params)
	if r == wakeupLeadTooSmall || r == wakeupLead {
		d.curr.q.updateCurr(now, &c.params)
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

// refCheckPreemptEEVDF is checkPreemptEEVDF as it was before the decision took one pass: the
// two-pass decision, then the same state changes (applyPreemptEEVDF).
func refCheckPreemptEEVDF(c *RunQueue, t *Entity, now uint64, fork bool) (WakeupDecision, WakeupReason) {
	p := &c.params
	d, r := CheckPreemptWakeup(c, t, fork, p)
	if r == wakeupPicked || r == wakeupNotPicked || r == wakeupForked || r == wakeupDelayed {
		// The kernel tests need-resched before update_curr, which may set it (a served
		// request): judge with the flag as it was, then keep both.
		was := c.needResched
		d.curr.q.updateCurrEEVDF(now, p)
		charged := c.needResched
		c.needResched = was
		d, r = CheckPreemptWakeup(c, t, fork, p)
		c.needResched = c.needResched || charged
	}
	r = c.applyPreemptEEVDF(r, now, &d)
	return d, r
}

// twinCPU is one of two CPUs driven by the same operations: three groups (one idle, one
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
		fmt.Fprintf(&b, " %s %d/%d/%d/%d/%d/%d/%t/%t", t, t.ExecStart, t.SumExecRuntime, t.Vruntime, t.Deadline, t.VLag,
			t.Slice, t.onRQ, t.delayed)
	}
	for _, g := range w.groups[1:] {
		q := &g.cpus[0].q
		fmt.Fprintf(&b, " %s:%d/%s/%s", g.name, q.minVruntime, name(q.next), name(q.last))
	}
	return b.String()
}

// TestCheckPreemptOnePass drives two CPUs of each version through the same random operations
// (wakeups, first starts, sleeps (under v6.18 and v7.1 often delayed), ticks, picks, renices or custom
// slices, yields, time passing), with the buddy, protection and PREEMPT_SHORT features and a
// small sched_nr_latency on or off, and at every wakeup of a sleeping task (or first start,
// judged as a fork at times) has one CPU enqueue it and judge preemption with checkPreempt and
// the other with refCheckPreempt: the decisions, their reasons and the states they leave must
// be the same.
func TestCheckPreemptOnePass(t *testing.T) {
	for _, v := range []Version{V65, V66, V618, V71} {
		checked, compared := 0, 0
		for seed := range uint64(60) {
			r := rand.New(rand.NewPCG(seed, 23+uint64(v)))
			p := preset(v, 1+r.IntN(8))
			p.NextBuddy = r.IntN(2) == 0
			switch v {
			case V65:
				p.LastBuddy = r.IntN(2) == 0
				if r.IntN(2) == 0 {
					p.NrLatency = 2
				}
			case V66:
				p.RunToParity = r.IntN(2) == 0
			case V618, V71:
				p.RunToParity = r.IntN(2) == 0
				p.PreemptShort = r.IntN(2) == 0
			}
			a, b := newTwinCPU(p), newTwinCPU(p)
			started := make([]bool, len(a.tasks))
			now := uint64(1)
			for range 1500 {
				now += uint64(r.IntN(40)) * 50_000
				k := r.IntN(len(a.tasks))
				ta, tb := a.tasks[k], b.tasks[k]
				switch op := r.IntN(8); {
				case op <= 2 && ta.delayed: // a delayed sleeper is requeued where it is
					a.c.Wakeup(ta, now)
					b.c.Wakeup(tb, now)
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
					var da WakeupDecision
					ra := a.c.checkPreempt(ta, now, fork, &da)
					db, rb := refCheckPreempt(b.c, tb, now, fork)
					if ra != rb || wakeupFields(da) != wakeupFields(db) {
						t.Fatalf("%v seed %d: wakeup of %v: one pass %v %s, reference %v %s", v, seed, ta, ra, wakeupFields(da), rb, wakeupFields(db))
					}
					checked++
					switch ra {
					case wakeupLead, wakeupLeadTooSmall, wakeupPicked, wakeupNotPicked, wakeupForked, wakeupDelayed:
						compared++
					}
				case op == 3: // sleep
					if !ta.onRQ || ta.delayed {
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
					if !started[k] {
						continue
					}
					if v >= V618 && r.IntN(2) == 0 { // custom slices since v6.12
						sl := uint64(r.IntN(8)) * 300_000
						a.c.SetSlice(ta, sl, now)
						b.c.SetSlice(tb, sl, now)
						continue
					}
					n := r.IntN(40) - 20
					a.c.SetNice(ta, n, now)
					b.c.SetNice(tb, n, now)
				default:
					a.c.Yield(now)
					b.c.Yield(now)
				}
				if sa, sb := a.state(), b.state(); sa != sb {
					t.Fatalf("%v seed %d: states differ:\n one pass  %s\n reference %s", v, seed, sa, sb)
				}
				if a.c.needResched && r.IntN(2) == 0 {
					a.c.Schedule(now)
					b.c.Schedule(now)
				}
			}
		}
		if checked < 5000 || compared < 1000 {
			t.Errorf("%v: only %d wakeups judged, %d past the idle rules", v, checked, compared)
		}
	}
}

// wakeupFields prints every field of d, the unexported entities by name (fmt does not call
// String on unexported fields).
func wakeupFields(d WakeupDecision) string {
	return fmt.Sprintf("{Preempt:%v curr:%v wakee:%v vDiff:%d gran:%d NextBuddy:%v LastBuddy:%v picked:%v pickReason:%v short:%v ShortenProtection:%v}",
		d.Preempt, d.curr, d.wakee, d.vDiff, d.gran, d.NextBuddy, d.LastBuddy, d.picked, d.pickReason, d.short, d.ShortenProtection)
}
