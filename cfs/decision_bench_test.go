package cfs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchQueue returns a CPU with n nice-0 tasks at seeded random vruntimes on its root queue,
// the first one running, having run 1 ms of its slice.
func benchQueue(b *testing.B, n int) (*RunQueue, []*Entity) {
	r := rand.New(rand.NewPCG(3, uint64(n)))
	ts := make([]*Entity, n)
	vrs := make([]uint64, n)
	for i := range ts {
		ts[i] = NewTask("t", Normal, 0)
		vrs[i] = 1<<40 + r.Uint64N(6_000_000)
	}
	return rig(b, DefaultParams(), true, 1_000_000, ts, vrs), ts
}

// pickScan is the naive baseline for Pick without buddies: a linear scan for the smallest
// vruntime, as a queue kept in an unordered slice would need.
func pickScan(all []*Entity) *Entity {
	best := all[0]
	for _, e := range all[1:] {
		if before(e.Vruntime, best.Vruntime) {
			best = e
		}
	}
	return best
}

var sinkEntity *Entity

func BenchmarkPick(b *testing.B) {
	for _, n := range []int{16, 256, 4096} {
		for _, buddy := range []string{"none", "next", "skip"} {
			c, ts := benchQueue(b, n)
			q := c.Root()
			switch buddy {
			case "next":
				q.next = ts[n/2]
			case "skip":
				q.skip = q.First()
			}
			b.Run(fmt.Sprintf("buddy=%s/impl=timeline/n=%d", buddy, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkEntity, _ = Pick(q, ts[0], &c.params)
				}
			})
		}
		_, ts := benchQueue(b, n)
		b.Run(fmt.Sprintf("buddy=none/impl=naive/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkEntity = pickScan(ts)
			}
		})
	}
}

var (
	sinkTick       TickDecision
	sinkTickReason TickReason
)

func BenchmarkCheckPreemptTick(b *testing.B) {
	for _, n := range []int{2, 256} {
		c, _ := benchQueue(b, n)
		b.Run(fmt.Sprintf("depth=0/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTick, sinkTickReason = CheckPreemptTick(c.Root(), c.Curr(), &c.params)
			}
		})
	}
	// A task two groups deep: Slice scales the period at three levels.
	c := NewRunQueue(0, DefaultParams())
	outer := NewGroup("outer", nil, 1)
	inner := NewGroup("inner", outer, 1)
	a, x, y := NewTask("a", Normal, 0), NewTask("x", Normal, 0), NewTask("y", Normal, 0)
	a.SetGroup(inner)
	x.SetGroup(inner)
	for _, tk := range []*Entity{a, x, y} {
		c.Fork(nil, tk, 0)
	}
	c.Schedule(0)
	c.Tick(1_000_000)
	curr := c.Curr()
	b.Run("depth=2/n=3", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkTick, sinkTickReason = CheckPreemptTick(curr.Queue(), curr, &c.params)
		}
	})
}

// BenchmarkCPU measures the state machine: op=tick is one scheduler tick of n nice-0 hogs
// (charging, the tick decision and, when it says so, a switch); op=sleep-wakeup takes a waiting
// task off and puts it back with a wakeup decision.
func BenchmarkCPU(b *testing.B) {
	for _, n := range []int{2, 16, 256} {
		c := NewRunQueue(0, DefaultParams())
		ts := make([]*Entity, n)
		for i := range ts {
			ts[i] = NewTask("t", Normal, 0)
			c.Fork(nil, ts[i], 0)
		}
		c.Schedule(0)
		now := uint64(0)
		b.Run(fmt.Sprintf("op=tick/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				now += 1_000_000
				c.Tick(now)
				if c.NeedResched() {
					c.Schedule(now)
				}
			}
		})
		i := 0
		b.Run(fmt.Sprintf("op=sleep-wakeup/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := ts[i%n]
				i++
				if t == c.Curr() {
					continue
				}
				now += 1000
				c.Sleep(t, now)
				c.Wakeup(t, now)
			}
		})
	}
}
