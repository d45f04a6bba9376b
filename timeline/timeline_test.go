package timeline

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func keysOf(tl *Timeline[item]) []int {
	var ids []int
	for it := range tl.All() {
		ids = append(ids, it.id)
	}
	return ids
}

func TestTimelineOrder(t *testing.T) {
	tests := []struct {
		name string
		keys []uint64
		want []int // item ids in timeline order
	}{
		{"ascending", []uint64{1, 2, 3}, []int{0, 1, 2}},
		{"descending", []uint64{3, 2, 1}, []int{2, 1, 0}},
		{"equal keys are FIFO", []uint64{5, 5, 5, 4}, []int{3, 0, 1, 2}},
		{"across the wrap", []uint64{3, ^uint64(0), 0, ^uint64(0) - 7}, []int{3, 1, 2, 0}},
		{"initial min_vruntime", []uint64{10, initialMinVruntime, 1 << 20}, []int{1, 0, 2}},
	}
	for _, tc := range tests {
		var tl Timeline[item]
		for i, k := range tc.keys {
			tl.Insert(&newItem(i).node, k)
			checkTimeline(t, &tl)
		}
		if got := keysOf(&tl); !slices.Equal(got, tc.want) {
			t.Errorf("%s: All() = %v, want %v", tc.name, got, tc.want)
		}
		if got := tl.First().Value().id; got != tc.want[0] {
			t.Errorf("%s: First() = %d, want %d", tc.name, got, tc.want[0])
		}
		var popped []int
		for n := tl.PopFirst(); n != nil; n = tl.PopFirst() {
			popped = append(popped, n.Value().id)
			if n.Queued() || n.Next() != nil {
				t.Errorf("%s: popped node still reports queued or a successor", tc.name)
			}
			checkTimeline(t, &tl)
		}
		if !slices.Equal(popped, tc.want) || !tl.Empty() || tl.Len() != 0 || tl.First() != nil || tl.Root() != nil {
			t.Errorf("%s: PopFirst order %v, want %v; then Len %d", tc.name, popped, tc.want, tl.Len())
		}
	}
}

func TestTimelineAugment(t *testing.T) {
	var tl Timeline[item]
	tl.EnableAugment()
	if !tl.Augmented() {
		t.Fatalf("Augmented() = false after EnableAugment")
	}
	its := make([]*item, 8)
	augs := []uint64{50, 40, 60, 10, 70, 30, 20, 80}
	for i := range its {
		its[i] = newItem(i)
		its[i].node.SetAug(augs[i])
		tl.Insert(&its[i].node, uint64(i*10))
		checkTimeline(t, &tl)
		if got := its[i].node.Aug(); got != augs[i] {
			t.Errorf("Aug() = %d, want %d", got, augs[i])
		}
	}
	if got := tl.Root().AugMin(); got != 10 {
		t.Errorf("Root().AugMin() = %d, want 10", got)
	}
	tl.Remove(&its[3].node) // the minimum
	checkTimeline(t, &tl)
	if got := tl.Root().AugMin(); got != 20 {
		t.Errorf("Root().AugMin() after removing the minimum = %d, want 20", got)
	}
	// A search can descend along the subtree minima, as EEVDF's pick does.
	n := tl.Root()
	for n.Aug() != n.AugMin() {
		if l := n.Left(); l != nil && l.AugMin() == n.AugMin() {
			n = l
		} else {
			n = n.Right()
		}
	}
	if n.Value() != its[6] {
		t.Errorf("descent along AugMin found item %d, want 6", n.Value().id)
	}
	// Wrap-aware: 2^64-2 is 12 before 10.
	its[3].node.SetAug(^uint64(0) - 1)
	tl.Insert(&its[3].node, 5)
	checkTimeline(t, &tl)
	if got := tl.Root().AugMin(); got != ^uint64(0)-1 {
		t.Errorf("Root().AugMin() with a value just before the wrap = %d, want 2^64-2", got)
	}
}

func TestTimelinePanics(t *testing.T) {
	var tl, other Timeline[item]
	a := newItem(0)
	tl.Insert(&a.node, 1)
	var bare Node[item]
	tests := []struct {
		name string
		f    func()
		msg  string
	}{
		{"double Insert", func() { tl.Insert(&a.node, 2) }, "timeline: Timeline.Insert of a node that is already on a timeline"},
		{"Insert into another timeline", func() { other.Insert(&a.node, 2) }, "timeline: Timeline.Insert of a node that is already on a timeline"},
		{"Insert without Init", func() { tl.Insert(&bare, 2) }, "timeline: Timeline.Insert of a node without a value"},
		{"foreign Remove", func() { other.Remove(&a.node) }, "timeline: Timeline.Remove of a node that is not on this timeline"},
		{"Remove of an unqueued node", func() { tl.Remove(&newItem(1).node) }, "timeline: Timeline.Remove of a node that is not on this timeline"},
		{"SetAug while queued", func() { a.node.SetAug(3) }, "timeline: Node.SetAug of a node that is on a timeline"},
		{"Init while queued", func() { a.node.Init(a) }, "timeline: Node.Init of a node that is on a timeline"},
		{"EnableAugment when not empty", func() { tl.EnableAugment() }, "timeline: Timeline.EnableAugment on a non-empty timeline"},
		{"UpdateAug off the timeline", func() { other.UpdateAug(&a.node, 1) }, "timeline: Timeline.UpdateAug of a node that is not on this timeline"},
		{"Insert into a full timeline", func() {
			var full Timeline[item]
			full.n = maxTimelineLen // as if it held that many nodes: the check comes first
			full.Insert(&newItem(2).node, 1)
		}, "timeline: Timeline.Insert into a timeline of 2^31-1 nodes"},
	}
	for _, tc := range tests {
		assertPanics(t, tc.name, tc.f, tc.msg)
	}
	checkTimeline(t, &tl)
}

// TestTimelineRandom runs a long seeded random workload on a large timeline against the model,
// checking the invariants every 64 operations. Keys and augmented values stay within 2^63 of
// each other, the precondition of the wrap-aware order (and of a well-defined minimum).
func TestTimelineRandom(t *testing.T) {
	for _, aug := range []bool{false, true} {
		r := rand.New(rand.NewPCG(7, 11))
		var tl Timeline[item]
		if aug {
			tl.EnableAugment()
		}
		var m modelTimeline
		items := make([]*item, 2000)
		for i := range items {
			items[i] = newItem(i)
		}
		for op := range 20_000 {
			it := items[r.IntN(len(items))]
			switch {
			case !it.node.Queued():
				key := initialMinVruntime + r.Uint64N(1<<22)
				it.node.SetAug(initialMinVruntime + r.Uint64N(1<<40))
				tl.Insert(&it.node, key)
				m.insert(it, key)
			case r.IntN(2) == 0:
				tl.Remove(&it.node)
				m.remove(it)
			default:
				n := tl.PopFirst()
				if n.Value() != m.items[0] {
					t.Fatalf("op %d: PopFirst() = %d, want %d", op, n.Value().id, m.items[0].id)
				}
				m.remove(m.items[0])
			}
			if op%64 == 0 {
				checkTimeline(t, &tl)
				compareTimeline(t, &tl, &m)
			}
		}
		checkTimeline(t, &tl)
		compareTimeline(t, &tl, &m)
	}
}

// TestTimelineUpdateAugLast checks UpdateAug (the augmented value of a queued node changes in
// place) and Last against the model, with the invariant checker after every change, on a
// seeded random mix of insertions, removals and in-place changes.
func TestTimelineUpdateAugLast(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var tl Timeline[item]
	tl.EnableAugment()
	var m modelTimeline
	if tl.Last() != nil {
		t.Fatalf("Last() of an empty timeline = %v, want nil", tl.Last())
	}
	for i := range 3000 {
		switch k := r.IntN(4); {
		case k == 0 || len(m.items) == 0:
			it := newItem(i)
			it.node.SetAug(r.Uint64N(1 << 20))
			key := r.Uint64N(1 << 16)
			tl.Insert(&it.node, key)
			m.insert(it, key)
		case k == 1:
			it := m.items[r.IntN(len(m.items))]
			tl.Remove(&it.node)
			m.remove(it)
		default:
			it := m.items[r.IntN(len(m.items))]
			tl.UpdateAug(&it.node, r.Uint64N(1<<20))
			if it.node.Aug() != it.node.aug {
				t.Fatalf("Aug() after UpdateAug disagrees")
			}
		}
		checkTimeline(t, &tl)
		compareTimeline(t, &tl, &m)
		if len(m.items) > 0 && tl.Last().Value() != m.items[len(m.items)-1] {
			t.Fatalf("Last() = item %d, want item %d", tl.Last().Value().id, m.items[len(m.items)-1].id)
		}
	}
	// Without augmentation UpdateAug only stores the value.
	var plain Timeline[item]
	it := newItem(0)
	plain.Insert(&it.node, 5)
	plain.UpdateAug(&it.node, 42)
	if it.node.Aug() != 42 || plain.Last() != &it.node {
		t.Errorf("UpdateAug on a plain timeline: Aug() = %d, want 42", it.node.Aug())
	}
}
