package timeline

import (
	"encoding/binary"
	"testing"
)

// runTimelineOps decodes ops into a stream of timeline operations and checks the timeline
// against modelTimeline and checkTimeline after every one. The first byte chooses whether the
// timeline is augmented; keys are a base near the u64 wrap point plus a signed 16-bit offset,
// so that the wrap-aware comparison is exercised. The same operations run on the port of the
// kernel's rbtree.c (kernel_test.go), whose shape the timeline's must match.
func runTimelineOps(t *testing.T, ops []byte) {
	var tl Timeline[item]
	var m modelTimeline
	if len(ops) > 0 && ops[0]&1 == 1 {
		tl.EnableAugment()
	}
	const base = ^uint64(0) - 1<<15 // the u64 wrap point lies within ±2^15 of base.
	var pool []*item
	var kt kTree
	var knodes []*kNode // knodes[i] is item i's node in kt
	next := 0
	for i := 1; i < len(ops); {
		op := ops[i] % 4
		i++
		arg := uint16(0)
		if i+1 < len(ops) {
			arg = binary.LittleEndian.Uint16(ops[i:])
			i += 2
		}
		switch op {
		case 0, 1: // insert a new or a previously removed item
			var it *item
			if op == 1 && len(pool) > 0 {
				it = pool[int(arg)%len(pool)]
				if it.node.Queued() {
					it = nil
				}
			}
			if it == nil {
				it = newItem(next)
				next++
				pool = append(pool, it)
				knodes = append(knodes, &kNode{id: it.id})
			}
			key := base + uint64(int64(int16(arg))) // sign-extended offset
			it.node.SetAug(key ^ uint64(arg)*0x9e3779b97f4a7c15>>40)
			tl.Insert(&it.node, key)
			kt.add(knodes[it.id], key)
			m.insert(it, key)
		case 2: // remove an arbitrary queued item
			if len(m.items) == 0 {
				continue
			}
			it := m.items[int(arg)%len(m.items)]
			tl.Remove(&it.node)
			kt.erase(knodes[it.id])
			m.remove(it)
		case 3: // pop the first
			n := tl.PopFirst()
			if len(m.items) == 0 {
				if n != nil {
					t.Fatalf("PopFirst() on empty = item %d, want nil", n.value.id)
				}
				continue
			}
			if n == nil || n.Value() != m.items[0] {
				t.Fatalf("PopFirst() = %v, want item %d", n, m.items[0].id)
			}
			kt.erase(kt.leftmost)
			m.remove(m.items[0])
		}
		if err := sameShape(&tl, &kt); err != nil {
			t.Fatalf("shape differs from the kernel's: %v", err)
		}
		checkTimeline(t, &tl)
		compareTimeline(t, &tl, &m)
	}
}

func compareTimeline(t *testing.T, tl *Timeline[item], m *modelTimeline) {
	t.Helper()
	if tl.Len() != len(m.items) {
		t.Fatalf("Len() = %d, want %d", tl.Len(), len(m.items))
	}
	i := 0
	for it := range tl.All() {
		if it != m.items[i] {
			t.Fatalf("All()[%d] = item %d, want item %d", i, it.id, m.items[i].id)
		}
		i++
	}
	if i != len(m.items) {
		t.Fatalf("All() yielded %d items, want %d", i, len(m.items))
	}
	if want, ok := m.augMin(); ok && tl.Augmented() && tl.Root().AugMin() != want {
		t.Fatalf("Root().AugMin() = %d, want %d", tl.Root().AugMin(), want)
	}
}

func FuzzTimeline(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 3, 0, 0})
	f.Add([]byte{1, 0, 0xff, 0x7f, 0, 0, 0x80, 0, 0, 0, 0, 2, 1, 0, 3, 0, 0})
	f.Add([]byte{1, 0, 5, 0, 0, 5, 0, 0, 5, 0, 2, 1, 0, 1, 1, 0, 3, 0, 0, 3})
	f.Fuzz(runTimelineOps)
}
