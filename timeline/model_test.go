package timeline

// item is the element type the timeline tests use.
type item struct {
	node Node[item]
	id   int
}

func newItem(id int) *item {
	it := &item{id: id}
	it.node.Init(it)
	return it
}

// modelTimeline is the naive reference for Timeline: a slice kept sorted by wrap-aware key,
// equal keys in insertion order.
type modelTimeline struct {
	items []*item
	keys  []uint64
}

func (m *modelTimeline) insert(it *item, key uint64) {
	i := len(m.items)
	for j := range m.items {
		if before(key, m.keys[j]) {
			i = j
			break
		}
	}
	m.items = append(m.items[:i], append([]*item{it}, m.items[i:]...)...)
	m.keys = append(m.keys[:i], append([]uint64{key}, m.keys[i:]...)...)
}

func (m *modelTimeline) remove(it *item) {
	for i, x := range m.items {
		if x == it {
			m.items = append(m.items[:i], m.items[i+1:]...)
			m.keys = append(m.keys[:i], m.keys[i+1:]...)
			return
		}
	}
	panic("model: remove of an absent item")
}

// augMin is the wrap-aware minimum of the augmented values of all items, and ok is false for
// an empty model.
func (m *modelTimeline) augMin() (uint64, bool) {
	if len(m.items) == 0 {
		return 0, false
	}
	v := m.items[0].node.aug
	for _, it := range m.items[1:] {
		if before(it.node.aug, v) {
			v = it.node.aug
		}
	}
	return v, true
}

// initialMinVruntime is the min_vruntime of a fresh cfs_rq, 2^64 - 2^20 (init_cfs_rq): keys
// near it wrap early, which the tests want.
const initialMinVruntime uint64 = 1<<64 - 1<<20
