package cfs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// refTickChecked is RunQueue.tick of a classic CFS CPU written out, its decision at every level
// taken by [CheckPreemptTick] and compared there with tickResched on the same state; it returns
// how many levels asked, and how many of them tickResched answered without the slice.
func refTickChecked(t *testing.T, c *RunQueue, now uint64) (asked, quick int) {
	t.Helper()
	p := &c.params
	for se := c.curr; se != nil; se = se.parent {
		q := se.q
		q.updateCurr(now, p)
		q.updateGroup(se, now, p)
		if q.nrRunning <= 1 {
			continue
		}
		d, r := CheckPreemptTick(q, se, p)
		resched, expired := tickResched(q, se, p)
		if resched != d.Resched || expired != (d.Resched && r == TickSliceExpired) {
			t.Fatalf("tick of %v: CheckPreemptTick %v %+v, tickResched resched %t expired %t", se, r, d, resched, expired)
		}
		asked++
		ran := se.SumExecRuntime - se.PrevSumExecRuntime
		if p.BaseSlice && ran < p.MinGranularity && ran <= min(p.IdleMinGranularity, p.MinGranularity, p.Latency) {
			quick++
		}
		if d.Resched {
			c.needResched = true
			if r == TickSliceExpired {
				q.clearBuddies(se)
			}
		}
	}
	return asked, quick
}

// tickState is twinCPU.state with what else a tick may change: the skip buddies, v7.1's
// protection points and the group entities' weights.
func (w *twinCPU) tickState() string {
	s := w.state()
	name := func(e *Entity) string {
		if e == nil {
			return "-"
		}
		return e.String()
	}
	s += fmt.Sprintf(" skip %s", name(w.c.root.skip))
	for _, t := range w.tasks {
		s += fmt.Sprintf(" %d", t.VProt)
	}
	for _, g := range w.groups[1:] {
		gc := &g.cpus[0]
		s += fmt.Sprintf(" %s:%s/%d/%d", g.name, name(gc.q.skip), gc.se.load.Weight, gc.se.VProt)
	}
	return s
}

// TestTickQuiet drives two CPUs of each version through the same random operations (wakeups,
// sleeps, ticks, picks, renices, yields, time passing) on the twin CPUs' hierarchy of groups
// (one idle, one nested) and mixed classes, with the classic tunables drawn at random (BASE_SLICE
// on or off, granularities and latency in any order, seed 004's tick rule, a small
// sched_nr_latency): one CPU ticks as the System does when it does not explain (tickQuiet), the
// other as RunQueue.Tick does, and every state they leave must be the same. Under v6.5 the
// second CPU's tick compares, at every level that asks, tickResched's verdict with
// CheckPreemptTick's on the same state, and the test checks that both of tickResched's paths (the
// one that skips the slice and the one that computes it) were taken often.
func TestTickQuiet(t *testing.T) {
	for _, v := range []Version{V65, V66, V71} {
		ticks, asked, quick := 0, 0, 0
		for seed := range uint64(40) {
			r := rand.New(rand.NewPCG(seed, 41+uint64(v)))
			p := preset(v, 1+r.IntN(8))
			p.NextBuddy = r.IntN(2) == 0
			if v == V65 {
				p.LastBuddy = r.IntN(2) == 0
				p.BaseSlice = r.IntN(4) != 0
				p.FavorNonIdleTick = r.IntN(3) == 0
				p.AltPeriod = r.IntN(3) != 0
				if r.IntN(2) == 0 {
					p.NrLatency = uint64(1 + r.IntN(3))
				}
				p.MinGranularity = uint64(1+r.IntN(12)) * 250_000
				p.IdleMinGranularity = uint64(1+r.IntN(12)) * 250_000
				p.Latency = uint64(1+r.IntN(30)) * 250_000
			} else {
				p.RunToParity = r.IntN(2) == 0
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			a, b := newTwinCPU(p), newTwinCPU(p)
			started := make([]bool, len(a.tasks))
			now := uint64(1)
			for range 1500 {
				now += uint64(r.IntN(24)) * 50_000
				k := r.IntN(len(a.tasks))
				ta, tb := a.tasks[k], b.tasks[k]
				switch op := r.IntN(8); {
				case op <= 1:
					if ta.onRQ && !ta.delayed {
						continue
					}
					if !started[k] {
						g := r.IntN(len(a.groups))
						ta.SetGroup(a.groups[g])
						tb.SetGroup(b.groups[g])
						started[k] = true
					}
					a.c.Wakeup(ta, now)
					b.c.Wakeup(tb, now)
				case op == 2:
					if !ta.onRQ || ta.delayed {
						continue
					}
					a.c.Sleep(ta, now)
					b.c.Sleep(tb, now)
				case op <= 5:
					a.c.tickQuiet(now)
					if v == V65 {
						n, q := refTickChecked(t, b.c, now)
						asked, quick = asked+n, quick+q
					} else {
						b.c.Tick(now)
					}
					ticks++
				case op == 6:
					a.c.Schedule(now)
					b.c.Schedule(now)
				case v == V65 && r.IntN(8) == 0:
					// A caller may change the tunables through Params between ticks: the
					// remembered slice must notice.
					g, f := uint64(1+r.IntN(12))*250_000, r.IntN(3)
					for _, c := range []*RunQueue{a.c, b.c} {
						switch f {
						case 0:
							c.Params().MinGranularity = g
						case 1:
							c.Params().Latency = g
						default:
							c.Params().BaseSlice = !c.Params().BaseSlice
						}
					}
				default:
					if started[k] && r.IntN(2) == 0 {
						n := r.IntN(40) - 20
						a.c.SetNice(ta, n, now)
						b.c.SetNice(tb, n, now)
						continue
					}
					a.c.Yield(now)
					b.c.Yield(now)
				}
				if sa, sb := a.tickState(), b.tickState(); sa != sb {
					t.Fatalf("%v seed %d: states differ:\n quiet %s\n tick  %s", v, seed, sa, sb)
				}
				if a.c.needResched && r.IntN(2) == 0 {
					a.c.Schedule(now)
					b.c.Schedule(now)
				}
			}
		}
		t.Logf("%v: %d ticks, %d levels asked, %d answered without the slice", v, ticks, asked, quick)
		if ticks < 15000 {
			t.Errorf("%v: only %d ticks", v, ticks)
		}
		if v == V65 && (quick < 2000 || asked-quick < 2000) {
			t.Errorf("%v: %d levels asked, %d answered without the slice", v, asked, quick)
		}
	}
}

// TestTickSliceMemo checks the tick's remembered slice (Queue.tickSlice) against slice for every
// entity queued on a CPU's root queue, and every group entity and task below, after every one of
// random operations (wakeups into the twin CPUs' groups, sleeps, ticks, picks, renices,
// tunables changed through Params), and checks that the memo answered often.
func TestTickSliceMemo(t *testing.T) {
	hits, asked := 0, 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 77))
		p := preset(V65, 1+r.IntN(8))
		p.AltPeriod = r.IntN(2) == 0
		w := newTwinCPU(p)
		c := w.c
		started := make([]bool, len(w.tasks))
		now := uint64(1)
		for range 2000 {
			now += uint64(r.IntN(24)) * 50_000
			k := r.IntN(len(w.tasks))
			e := w.tasks[k]
			switch op := r.IntN(10); {
			case op <= 1:
				if e.onRQ {
					continue
				}
				if !started[k] {
					e.SetGroup(w.groups[r.IntN(2)*r.IntN(len(w.groups))])
					started[k] = true
				}
				c.Wakeup(e, now)
			case op == 2:
				if e.onRQ {
					c.Sleep(e, now)
				}
			case op <= 5:
				c.tickQuiet(now)
			case op <= 7:
				c.Schedule(now)
			case op == 8:
				if started[k] {
					c.SetNice(e, r.IntN(40)-20, now)
				}
			default:
				q := c.Params()
				switch r.IntN(6) {
				case 0:
					q.MinGranularity = uint64(1+r.IntN(12)) * 250_000
				case 1:
					q.IdleMinGranularity = uint64(1+r.IntN(12)) * 250_000
				case 2:
					q.Latency = uint64(1+r.IntN(30)) * 250_000
				case 3:
					q.NrLatency = uint64(1 + r.IntN(8))
				case 4:
					q.BaseSlice = !q.BaseSlice
				default:
					q.CalcDelta = DeltaMethod(r.IntN(2))
				}
			}
			for _, e := range w.tasks {
				if !e.onRQ {
					continue
				}
				for se := e; se != nil; se = se.parent {
					before := c.memo
					got, want := se.q.tickSlice(se, &c.params), slice(se.q, se, &c.params)
					if got != want {
						t.Fatalf("seed %d: tickSlice(%v) %d, slice %d (memo %+v)", seed, se, got, want, before)
					}
					asked++
					if se.q == &c.root && before == c.memo {
						hits++
					}
				}
			}
		}
	}
	if hits < asked/4 {
		t.Errorf("the memo answered %d of %d", hits, asked)
	}
	t.Logf("the memo answered %d of %d", hits, asked)
}
