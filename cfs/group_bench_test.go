package cfs

import (
	"fmt"
	"testing"
)

var sharesSink uint64

// BenchmarkEntityShares measures a group entity's weight on one CPU (calc_group_shares) on
// machines of cpus=N, with the group's sum of loads kept as the queues change (sum=kept, what
// entityShares reads) and added up CPU by CPU at each call (sum=naive, the baseline: what it
// did before and what the checker's naiveLoadSum still does).
func BenchmarkEntityShares(b *testing.B) {
	for _, n := range []int{8, 96, 1024} {
		g := NewGroup("g", nil, n)
		for i := range g.cpus {
			g.cpus[i].q.group = g // as Group.on sets it up
			g.cpus[i].q.setLoad(LoadWeight{Weight: uint64(i%3) * NiceZeroLoad})
		}
		c := &RunQueue{id: n / 2}
		if naiveLoadSum(g) != g.loadSum {
			b.Fatalf("cpus=%d: kept sum %d, naive %d", n, g.loadSum, naiveLoadSum(g))
		}
		b.Run(fmt.Sprintf("cpus=%d/sum=kept", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sharesSink += g.entityShares(c)
			}
		})
		b.Run(fmt.Sprintf("cpus=%d/sum=naive", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				load := ScaleLoadDown(g.cpus[c.id].q.load.Weight)
				sharesSink += GroupShares(g.shares, load, naiveLoadSum(g)-load)
			}
		})
	}
}
