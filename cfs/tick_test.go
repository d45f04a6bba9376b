package cfs

import (
	"math/rand/v2"
	"testing"
)

// TestSliceMemo checks slice, which takes the CPU's memo for a task queued on the root queue,
// against sched_slice computed afresh (schedSliceFresh) for every queued entity, and every group
// entity and task below, after every one of random operations (wakeups into the twin CPUs'
// groups, sleeps, ticks, picks, renices, tunables changed through Params), and checks that the
// memo answered often. Package slicememo's tests make the same comparison through the exported
// API, on every tick's ideal slice.
func TestSliceMemo(t *testing.T) {
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
				c.Tick(now)
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
					nr := uint64(se.q.nrRunning)
					if c.params.AltPeriod {
						nr = uint64(c.root.hNrRunning)
					}
					got := slice(se.q, se, &c.params)
					want := schedSliceFresh(se.q, se, nr, &c.params)
					if got != want {
						t.Fatalf("seed %d: slice(%v) %d, computed afresh %d (memo %+v)", seed, se, got, want, before)
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

// schedSliceFresh is sched_slice without the memo: the period for nr entities (se is queued)
// scaled at every level, then the BASE_SLICE floor.
func schedSliceFresh(q *Queue, se *Entity, nr uint64, p *Params) uint64 {
	s := scaledPeriod(q, se, nr, p)
	if p.BaseSlice {
		floor := p.MinGranularity
		if se.IsIdle() && !q.allIdle() {
			floor = p.IdleMinGranularity
		}
		s = max(s, floor)
	}
	return s
}
