package timeline

import "testing"

// TestZeroAllocs enforces the claim that the timeline's operations do not allocate: insertion,
// removal of any node and of the leftmost, the in-place change of an augmented value, and a
// walk with Next, on an augmented timeline of 256 nodes.
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	var tl Timeline[item]
	tl.EnableAugment()
	items := make([]*item, 256)
	for i := range items {
		items[i] = newItem(i)
		tl.Insert(&items[i].node, uint64(i*7919%256))
	}
	k := 0
	if a := testing.AllocsPerRun(1000, func() {
		n := tl.PopFirst()
		tl.Insert(n, n.key+300)
		it := items[k%len(items)]
		tl.Remove(&it.node)
		tl.Insert(&it.node, it.node.key+1)
		tl.UpdateAug(&it.node, uint64(k))
		for x := tl.First(); x != nil; x = x.Next() {
		}
		k++
	}); a != 0 {
		t.Errorf("Timeline PopFirst/Insert/Remove/UpdateAug/Next: %v allocs per run, want 0", a)
	}
	checkTimeline(t, &tl)
}
