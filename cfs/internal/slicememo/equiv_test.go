package slicememo_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/cfs"
)

// modelSlice is the kernel's sched_slice written from cfs's exported state and arithmetic, with
// no memo: the period for the entities of se's queue (every fair task of the CPU with
// ALT_PERIOD), plus se if it is not queued, scaled by se's share of its queue's load at every
// level, then floored with BASE_SLICE.
func modelSlice(c *cfs.RunQueue, q *cfs.Queue, se *cfs.Entity, p *cfs.Params) uint64 {
	nr := uint64(q.NrRunning())
	if p.AltPeriod {
		nr = uint64(c.Root().HNrRunning())
	}
	if !se.OnRQ() {
		nr++
	}
	slice := cfs.Period(nr, p)
	for s, sq := se, q; s != nil; s = s.Parent() {
		if s != se {
			sq = s.Queue()
		}
		load := sq.Load()
		if !s.OnRQ() {
			load = cfs.LoadWeight{Weight: load.Weight + s.Load().Weight} // update_load_add: no cached inverse
		}
		slice = cfs.CalcDelta(p.CalcDelta, slice, s.Load().Weight, load)
	}
	if p.BaseSlice {
		floor := p.MinGranularity
		if se.IsIdle() && !(q.NrRunning() > 0 && q.NrRunning() == q.IdleNrRunning()) {
			floor = p.IdleMinGranularity
		}
		slice = max(slice, floor)
	}
	return slice
}

// TestTickSliceEqualsSchedSlice drives classic CFS run queues (v6.5, with ALT_PERIOD on or off)
// through random operations on a hierarchy of groups (one idle, one nested) and tasks of every
// class: wakeups, sleeps, ticks, picks, renices and tunables changed through Params between
// ticks. At every tick level that decides, the decision's ideal slice, which cfs takes from the
// memo for a task queued on the root queue, must be min(sched_slice, latency) computed afresh
// by modelSlice; after every operation, so must cfs.Slice of every queued entity and of every
// group entity above it. The memo is consulted at every root-level tick among the same
// competitors, and must never answer with a slice its key no longer describes.
func TestTickSliceEqualsSchedSlice(t *testing.T) {
	ticks := 0
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 91))
		p, err := cfs.Preset("v6.5")
		if err != nil {
			t.Fatal(err)
		}
		p = p.ForCPUs(1 + r.IntN(8))
		p.AltPeriod = r.IntN(2) == 0
		c := cfs.NewRunQueue(0, p)
		ga := cfs.NewGroup("ga", nil, 1)
		gi := cfs.NewGroup("gi", nil, 1)
		gi.SetIdle(true)
		gn := cfs.NewGroup("gn", ga, 1)
		groups := []*cfs.Group{nil, ga, gi, gn}
		var tasks []*cfs.Entity
		for i, nice := range []int{0, 5, -3, 0, -10, 19, 0, 2} {
			class := cfs.Normal
			switch i {
			case 2:
				class = cfs.Batch
			case 3:
				class = cfs.Idle
			}
			tasks = append(tasks, cfs.NewTask(fmt.Sprintf("t%d", i), class, nice))
		}
		started := make([]bool, len(tasks))
		now := uint64(1)
		for range 2000 {
			now += uint64(r.IntN(24)) * 50_000
			k := r.IntN(len(tasks))
			e := tasks[k]
			switch op := r.IntN(10); {
			case op <= 1:
				if e.OnRQ() {
					continue
				}
				if !started[k] {
					e.SetGroup(groups[r.IntN(2)*r.IntN(len(groups))])
					started[k] = true
				}
				c.Wakeup(e, now)
			case op == 2:
				if e.OnRQ() {
					c.Sleep(e, now)
				}
			case op <= 5:
				d, why := c.Tick(now)
				ticks++
				if why == cfs.TickNoCompetitor {
					continue
				}
				pp := c.Params()
				if want := min(modelSlice(c, d.Curr.Queue(), d.Curr, pp), pp.Latency); d.Ideal != want {
					t.Fatalf("seed %d: tick of %v: ideal %d, want %d", seed, d.Curr, d.Ideal, want)
				}
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
					q.CalcDelta = cfs.DeltaMethod(r.IntN(2))
				}
			}
			for _, e := range tasks {
				for se := e; e.OnRQ() && se != nil; se = se.Parent() {
					if got, want := cfs.Slice(se.Queue(), se, c.Params()), modelSlice(c, se.Queue(), se, c.Params()); got != want {
						t.Fatalf("seed %d: Slice(%v) = %d, want %d", seed, se, got, want)
					}
				}
			}
		}
	}
	if ticks < 15000 {
		t.Errorf("only %d ticks", ticks)
	}
}
