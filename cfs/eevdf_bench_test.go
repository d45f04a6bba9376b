package cfs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchEEVDF returns a CPU of version v whose root queue holds n tasks of mixed nice levels at
// seeded random vruntimes within ±3 ms of the reference point, each with a deadline one random
// slice (0.1-3 ms of virtual time) after its vruntime; none is running.
func benchEEVDF(b *testing.B, v Version, n int) *RunQueue {
	r := rand.New(rand.NewPCG(7, uint64(n)))
	specs := make([]rigSpec, n)
	for i := range specs {
		specs[i] = rigSpec{
			nice:  r.IntN(11) - 5,
			dv:    r.Int64N(6_000_000) - 3_000_000,
			dd:    100_000 + r.Uint64N(2_900_000),
			slice: 700_000,
		}
	}
	c, _ := rigEEVDF(b, preset(v, 1), InitialMinVruntime, specs, -1)
	return c
}

// pickScanEEVDF is the naive baseline for PickEEVDF: a linear scan of every queued entity for
// the eligible one with the earliest deadline, with the same O(1) eligibility test.
func pickScanEEVDF(q *Queue, all []*Entity) *Entity {
	el := q.eligibility()
	var best *Entity
	for _, e := range all {
		if el.ok(e.Vruntime) && (best == nil || before(e.Deadline, best.Deadline)) {
			best = e
		}
	}
	return best
}

// BenchmarkPickEEVDF measures EEVDF's O(log n) pick on the augmented timeline (impl=timeline)
// against a linear scan (impl=naive), on the same queue.
func BenchmarkPickEEVDF(b *testing.B) {
	for _, v := range []Version{V66, V618, V71} {
		for _, n := range []int{16, 256, 4096} {
			c := benchEEVDF(b, v, n)
			q, p := c.Root(), c.Params()
			all := queuedEntities(q)
			b.Run(fmt.Sprintf("version=%v/impl=timeline/n=%d", v, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkEntity, _ = pickEEVDF(q, true, p)
				}
			})
			b.Run(fmt.Sprintf("version=%v/impl=naive/n=%d", v, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					sinkEntity = pickScanEEVDF(q, all)
				}
			})
		}
	}
}

// BenchmarkCPUEEVDF measures the EEVDF state machine, as BenchmarkCPU does for v6.5: op=tick is
// one scheduler tick of n nice-0 hogs (charging, the deadline, and, when asked, a pick and a
// switch); op=sleep-wakeup takes a waiting task off and puts it back with a wakeup decision.
func BenchmarkCPUEEVDF(b *testing.B) {
	for _, v := range []Version{V66, V618, V71} {
		for _, n := range []int{2, 16, 256} {
			c := NewRunQueue(0, preset(v, 1))
			ts := make([]*Entity, n)
			for i := range ts {
				ts[i] = NewTask("t", Normal, 0)
				c.Fork(nil, ts[i], 0)
			}
			c.Schedule(0)
			now := uint64(0)
			b.Run(fmt.Sprintf("version=%v/op=tick/n=%d", v, n), func(b *testing.B) {
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
			b.Run(fmt.Sprintf("version=%v/op=sleep-wakeup/n=%d", v, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					t := ts[i%n]
					i++
					if t == c.Curr() {
						continue
					}
					now += 1000
					c.DequeueDelayed(t, now)
					if !t.OnRQ() {
						continue
					}
					c.Sleep(t, now)
					c.Wakeup(t, now)
				}
			})
		}
	}
}
