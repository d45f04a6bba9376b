package sim

import (
	"container/heap"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"
)

// checkHeap verifies the invariants of q's heap: positions match, and no entry is before its
// parent; a hole at the root holds no entry and has entries below it; and that top's test of the
// root finds a hole or an empty heap not before lim.
func checkHeap(t *testing.T, q *eventQueue) {
	t.Helper()
	first := 0
	if q.hole {
		if len(q.h) < 2 {
			t.Fatalf("hole in a heap of %d", len(q.h))
		}
		first = 1
	}
	if cap(q.h) == 0 || (q.hole || len(q.h) == 0) && q.h[:1][0].t != math.MaxInt64 {
		t.Fatalf("hole %v, %d entries: root's time %d", q.hole, len(q.h), q.h[:1][0].t)
	}
	for i := first; i < len(q.h); i++ {
		if got := q.pos[q.h[i].slot]; got != int32(i+1) {
			t.Fatalf("pos[%d] = %d, want %d", q.h[i].slot, got, i+1)
		}
		if p := (i - 1) / 4; i > 0 && p >= first && q.h[i].before(&q.h[p]) {
			t.Fatalf("h[%d] = %+v is before its parent %+v", i, q.h[i], q.h[p])
		}
		if l := q.late[q.h[i].slot]; l.seq > q.h[i].seq && l.t < q.h[i].t {
			t.Fatalf("h[%d] = %+v has a late key %+v before it", i, q.h[i], l)
		}
	}
	n := 0
	for _, p := range q.pos {
		if p > 0 {
			n++
		}
	}
	if n != len(q.h)-first || q.empty() != (len(q.h) == 0 && q.nfar == 0) {
		t.Fatalf("%d slots in the heap, %d entries, empty %v", n, len(q.h)-first, q.empty())
	}
}

// checkWheel verifies the invariants of q's timer wheel: each bucket's list is well linked and
// holds groups of its bucket at the horizon or later, marked as in the wheel, nfar of them, and
// no other slot is marked; and lim. It returns the heads.
func checkWheel(t *testing.T, q *eventQueue) []int32 {
	t.Helper()
	var heads []int32
	for b, h := range q.buckets {
		prev := int32(-1)
		for s := h - 1; s >= 0; s = q.far[s].next {
			f := q.far[s]
			if q.pos[s] != -1 || f.prev != prev || f.t < q.horizon || wheelBucket(f.t) != b {
				t.Fatalf("bucket %d: slot %d: pos %d, %+v, prev %d, horizon %d", b, s, q.pos[s], f, prev, q.horizon)
			}
			heads = append(heads, s)
			prev = s
			if len(heads) > len(q.pos) {
				t.Fatalf("bucket %d: a cycle", b)
			}
		}
	}
	marked := 0
	for _, p := range q.pos {
		if p < 0 {
			marked++
		}
	}
	if len(heads) != q.nfar || marked != q.nfar || q.horizon%wheelWidth != 0 && q.horizon != math.MaxInt64 {
		t.Fatalf("wheel: %d heads, %d marked, nfar %d, horizon %d", len(heads), marked, q.nfar, q.horizon)
	}
	want := int64(math.MaxInt64)
	switch {
	case q.lazy:
		want = math.MinInt64
	case q.nfar > 0:
		want = q.horizon
	}
	if q.lim != want {
		t.Fatalf("lim %d, want %d (lazy %v, nfar %d, horizon %d)", q.lim, want, q.lazy, q.nfar, q.horizon)
	}
	return heads
}

// checkQueue verifies the invariants of q: its heap's and its wheel's, and that each slot in the
// heap or the wheel heads a well-linked circular list of slots armed for its time (the
// wheel's, the time it holds), these lists together hold exactly the pending slots, and no
// other slot is in the heap.
func checkQueue(t *testing.T, q *eventQueue, plain int32) {
	t.Helper()
	checkHeap(t, q)
	var heads []event
	for i := range q.h {
		if i > 0 || !q.hole {
			heads = append(heads, q.h[i])
		}
	}
	for _, s := range checkWheel(t, q) {
		if s < plain {
			t.Fatalf("plain slot %d in the wheel", s)
		}
		heads = append(heads, event{t: q.far[s].t, seq: q.far[s].seq, slot: s})
	}
	inList := 0
	for _, e := range heads {
		if e.slot < plain {
			if r := q.ring[e.slot]; r.next >= 0 {
				t.Fatalf("plain slot %d in a group: %+v", e.slot, r)
			}
			inList++
			continue
		}
		if q.ring[e.slot].t != e.t {
			t.Fatalf("head %d: time %d, in heap or wheel %d", e.slot, q.ring[e.slot].t, e.t)
		}
		s := e.slot
		for {
			r := q.ring[s]
			if r.next < 0 || r.t != e.t || q.ring[r.next].prev != s {
				t.Fatalf("group %d: slot %d: %+v, next's prev %d", e.slot, s, r, q.ring[r.next].prev)
			}
			if s != e.slot && q.pos[s] != 0 {
				t.Fatalf("group %d: slot %d in the heap or the wheel", e.slot, s)
			}
			inList++
			if s = r.next; s == e.slot {
				break
			}
			if inList > len(q.ring) {
				t.Fatalf("group %d: a cycle without its head", e.slot)
			}
		}
	}
	n := 0
	for s := range int32(len(q.ring)) {
		if s < plain && q.pending(s) || s >= plain && q.timerPending(s) {
			n++
		}
	}
	if inList != n || q.empty() != (n == 0) {
		t.Fatalf("%d slots armed, %d in the heap and lists, empty %v", n, inList, q.empty())
	}
}

// TestQueueAgainstModel runs random arm, disarm and pop operations on the queue and on a naive
// model (a map from slot to (time, order of arming), scanned for the minimum), comparing them
// after each. Times are drawn from a few values, so that most events tie with others and groups
// form, move and empty; slots are re-armed at their own time too. Pops leave a hole at the root;
// the operation after one is an arm of a new slot, a re-arm or disarm of a pending one, or a
// look at the top, so that each way of filling it runs. With cache=false all the times share a
// cache line, so that events of a time start a new group whenever another time took it; with
// plain=8, slots 0-7 do not group and come between the groups of their time, and half their
// arms are armLater's (a move to a later time then waits in late). The times are multiples of
// scale: 1 keeps them in one bucket of the timer wheel, a third of a bucket spreads them over
// buckets, a third of the wheel's lap over laps, so that groups wait in the wheel, wrap around
// it and come into the heap at the horizon, and the horizon jumps. With advancing, a time is
// one of them after the last event popped, as the machine's are after now, so that the
// horizon keeps moving and the wheel keeps filling.
func TestQueueAgainstModel(t *testing.T) {
	type tcase struct {
		times     int
		cache     bool
		plain     int32
		scale     int64
		advancing bool
	}
	var cases []tcase
	for _, tc := range []tcase{{50, true, 0, 1, false}, {6, true, 0, 1, false}, {6, false, 0, 1, false}, {50, false, 0, 1, false},
		{1, true, 0, 1, false}, {6, true, 8, 1, false}, {6, false, 8, 1, false}, {50, true, 8, 1, false}, {1, true, 8, 1, false}} {
		cases = append(cases, tc)
		for _, scale := range []int64{wheelWidth / 3, wheelSpan / 3} {
			for _, adv := range []bool{false, true} {
				tc.scale, tc.advancing = scale, adv
				cases = append(cases, tc)
			}
		}
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("times=%d/cache=%v/plain=%d/scale=%d/advancing=%v", tc.times, tc.cache, tc.plain, tc.scale, tc.advancing), func(t *testing.T) {
			testQueueAgainstModel(t, tc.times, tc.cache, tc.plain, tc.scale, tc.advancing)
		})
	}
}

func testQueueAgainstModel(t *testing.T, times int, cache bool, plain int32, scale int64, advancing bool) {
	const slots = 40
	r := rand.New(rand.NewPCG(1, uint64(times)))
	var q eventQueue
	q.addSlots(slots / 2)
	q.addSlots(slots / 2)
	// The times to arm for: 0, 1, ..., or with cache=false as many that share a cache line.
	ts := make([]int64, 0, times)
	for tm := int64(0); len(ts) < times; tm += scale {
		if cache || q.line(tm) == q.line(0) {
			ts = append(ts, tm)
		}
	}
	var now int64 // the time of the last event popped
	arm, disarm, pending, timeOf := q.armTimer, q.disarmTimer, q.timerPending, q.timerTime
	if plain > 0 {
		arm = func(s int32, t int64) {
			switch {
			case s < plain && r.IntN(2) == 0:
				q.armLater(s, t)
			case s < plain:
				q.arm(s, t)
			default:
				q.armTimer(s, t)
			}
		}
		disarm = func(s int32) {
			if s < plain {
				q.disarm(s)
			} else {
				q.disarmTimer(s)
			}
		}
		pending = func(s int32) bool { return s < plain && q.pending(s) || s >= plain && q.timerPending(s) }
		timeOf = func(s int32) int64 {
			if s < plain {
				return q.timeOf(s)
			}
			return q.timerTime(s)
		}
	}
	model := map[int32]event{}
	var seq uint64
	best := func() event {
		var b event
		for _, e := range model {
			if b.seq == 0 || e.before(&b) {
				b = e
			}
		}
		return b
	}
	for step := range 40000 {
		s := int32(r.IntN(slots))
		switch r.IntN(5) {
		case 0, 1:
			tm := ts[r.IntN(times)]
			if advancing {
				tm += now
			}
			if e, ok := model[s]; ok && r.IntN(3) == 0 {
				tm = e.t // re-arm at the same time: s goes after the others of tm
			}
			arm(s, tm)
			seq++
			model[s] = event{t: tm, seq: seq, slot: s}
		case 2:
			disarm(s)
			delete(model, s)
		case 3, 4:
			// Pop: the earliest, then disarm it, as the machine does.
			if len(model) > 0 {
				b := best()
				if top := *q.top(); top.slot != b.slot || top.t != b.t {
					t.Fatalf("step %d: top %+v, model %+v", step, top, b)
				}
				disarm(b.slot)
				delete(model, b.slot)
				s, now = b.slot, b.t
			}
		}
		checkQueue(t, &q, plain)
		for ms, e := range model {
			if !pending(ms) || timeOf(ms) != e.t {
				t.Fatalf("step %d: slot %d: pending %v, time %d; model %+v", step, ms, pending(ms), timeOf(ms), e)
			}
		}
		if q.empty() != (len(model) == 0) {
			t.Fatalf("step %d: empty %v, model %d", step, q.empty(), len(model))
		}
		if pending(s) != (model[s] != event{}) {
			t.Fatalf("step %d: pending(%d) = %v", step, s, pending(s))
		}
		if len(model) == 0 || r.IntN(2) == 0 {
			continue // leave any hole for the next operation to fill
		}
		if b, top := best(), *q.top(); top.slot != b.slot || top.t != b.t {
			t.Fatalf("step %d: top %+v, model %+v", step, top, b)
		}
	}
	// Drain: the whole order, ties included, is the model's.
	for len(model) > 0 {
		b, top := best(), *q.top()
		if top.slot != b.slot || top.t != b.t {
			t.Fatalf("drain: top %+v, model %+v", top, b)
		}
		disarm(b.slot)
		delete(model, b.slot)
		checkQueue(t, &q, plain)
	}
}

func TestQueueFIFOAtEqualTimes(t *testing.T) {
	var q eventQueue
	q.addSlots(10)
	for _, s := range []int32{7, 3, 9, 0, 5} {
		q.arm(s, 100)
	}
	var got []int32
	for !q.empty() {
		s := q.top().slot
		got = append(got, s)
		q.disarm(s)
	}
	if fmt.Sprint(got) != "[7 3 9 0 5]" {
		t.Errorf("events of equal time came out as %v, want in order of arming [7 3 9 0 5]", got)
	}
}

// stdHeap is the baseline: container/heap over the same events, with an index per slot.
type stdHeap struct {
	h   []event
	pos []int
}

func (h *stdHeap) Len() int           { return len(h.h) }
func (h *stdHeap) Less(i, j int) bool { return h.h[i].before(&h.h[j]) }
func (h *stdHeap) Swap(i, j int) {
	h.h[i], h.h[j] = h.h[j], h.h[i]
	h.pos[h.h[i].slot], h.pos[h.h[j].slot] = i, j
}
func (h *stdHeap) Push(x any) { e := x.(event); h.pos[e.slot] = len(h.h); h.h = append(h.h, e) }
func (h *stdHeap) Pop() any {
	e := h.h[len(h.h)-1]
	h.h = h.h[:len(h.h)-1]
	h.pos[e.slot] = -1
	return e
}

// BenchmarkQueue measures the machine's typical operation, taking the earliest event and
// arming its slot again later (a clock interrupt, a thread's next sleep), against
// container/heap, at several numbers of pending events.
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{16, 256, 4096} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		delays := make([]int64, 1024)
		for i := range delays {
			delays[i] = 1 + r.Int64N(1000)
		}
		b.Run(fmt.Sprintf("impl=4ary/events=%d", n), func(b *testing.B) {
			var q eventQueue
			q.addSlots(n)
			for s := range int32(n) {
				q.arm(s, delays[int(s)%len(delays)])
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				e := q.top()
				q.arm(e.slot, e.t+delays[i&1023])
				i++
			}
		})
		b.Run(fmt.Sprintf("impl=container-heap/events=%d", n), func(b *testing.B) {
			h := &stdHeap{pos: make([]int, n)}
			var seq uint64
			for s := range int32(n) {
				seq++
				heap.Push(h, event{t: delays[int(s)%len(delays)], seq: seq, slot: s})
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				seq++
				h.h[0].t += delays[i&1023]
				h.h[0].seq = seq
				heap.Fix(h, 0)
				i++
			}
		})
	}
}

// TestNextTickMatchesTickTime checks the machine's running clock-interrupt times against the
// division they replace, for tick rates that divide 10⁹ and rates that do not, over long runs,
// and where the times saturate near math.MaxInt64.
func TestNextTickMatchesTickTime(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	rates := []int64{1, 3, 7, 100, 127, 128, 250, 1000, 1024, 999_983, 1_000_000}
	for range 20 {
		rates = append(rates, 1+r.Int64N(1_000_000))
	}
	for _, hz := range rates {
		m := &Machine{tickHz: hz}
		m.tickK, m.tickAt = 1, m.tickTime(1)
		m.tickQ, m.tickR = int64(time.Second)/hz, int64(time.Second)%hz
		m.tickRem = m.tickR
		for k := int64(1); k < 5000; k++ {
			if m.tickK != k || m.tickAt != m.tickTime(k) {
				t.Fatalf("hz %d: interrupt %d (tickK %d) at %d, want %d", hz, k, m.tickK, m.tickAt, m.tickTime(k))
			}
			m.nextTick()
		}
		// Jump near the end of time: the state of interrupt k, then step on past saturation.
		k := int64(math.MaxInt64/int64(time.Second))*hz - 3
		hi, lo := bits.Mul64(uint64(k), uint64(time.Second))
		_, rem := bits.Div64(hi, lo, uint64(hz))
		m.tickK, m.tickAt, m.tickRem = k, m.tickTime(k), int64(rem)
		for range 2 * hz {
			m.nextTick()
			if want := m.tickTime(m.tickK); m.tickAt != want {
				t.Fatalf("hz %d: interrupt %d at %d, want %d", hz, m.tickK, m.tickAt, want)
			}
			if m.tickAt == math.MaxInt64 {
				break
			}
		}
	}
}

// TestEarlierMask checks the heap's branch-free comparison against event.before on times from
// 0 to math.MaxInt64 (the queue's whole range: times are never negative) and on ties broken by
// the sequence number, and earliest4's choice against a plain scan.
func TestEarlierMask(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	times := []int64{0, 1, 2, 1 << 31, 1<<62 - 1, 1 << 62, math.MaxInt64 - 1, math.MaxInt64}
	seqs := []uint64{0, 1, 2, 1 << 63, math.MaxUint64 - 1, math.MaxUint64}
	pick := func() event {
		e := event{t: times[r.IntN(len(times))], seq: seqs[r.IntN(len(seqs))]}
		if r.IntN(2) == 0 {
			e.t = r.Int64N(math.MaxInt64)
		}
		if r.IntN(2) == 0 {
			e.seq = r.Uint64()
		}
		return e
	}
	for range 200_000 {
		a, b := pick(), pick()
		want := int64(0)
		if a.before(&b) {
			want = -1
		}
		if got := earlierMask(a.t, a.seq, b.t, b.seq); got != want {
			t.Fatalf("earlierMask(%d, %d, %d, %d) = %d, want %d", a.t, a.seq, b.t, b.seq, got, want)
		}
		var ch [4]event
		for i := range ch {
			ch[i] = pick()
		}
		best := 0
		for i := 1; i < 4; i++ {
			if ch[i].before(&ch[best]) {
				best = i
			}
		}
		c, bt, bq := earliest4(4, &ch)
		if c != 4+best || bt != ch[best].t || bq != ch[best].seq {
			t.Fatalf("earliest4(%v) = %d, %d, %d; want child %d", ch, c-4, bt, bq, best)
		}
	}
}

// TestQueueWheelEndOfTime arms timers in the wheel's last bucket before time runs out, where
// the horizon's next step would overflow, and beyond a lap with nothing in the heap (the
// horizon jumps): they come out in order of time, then of arming, a plain slot among them.
func TestQueueWheelEndOfTime(t *testing.T) {
	var q eventQueue
	q.addSlots(6)
	const plain = 1
	q.armTimer(1, math.MaxInt64)
	q.armTimer(2, 3*wheelSpan+5)
	q.arm(0, math.MaxInt64)
	q.armTimer(3, math.MaxInt64-1)
	q.armTimer(4, math.MaxInt64)
	q.armTimer(5, 3*wheelSpan+5)
	checkQueue(t, &q, plain)
	var got []int32
	for !q.empty() {
		s := q.top().slot
		got = append(got, s)
		if s < plain {
			q.disarm(s)
		} else {
			q.disarmTimer(s)
		}
		checkQueue(t, &q, plain)
	}
	if fmt.Sprint(got) != "[2 5 3 1 0 4]" {
		t.Errorf("events came out as %v, want [2 5 3 1 0 4]", got)
	}
}

// TestRoomFor: a slice with too little room grows to at least twice its capacity (and at least
// the room asked for) with its elements kept; one with room comes back as it was; after it, the
// appends asked for never move the slice. One element at a time, as a fork adds a thread, and
// several, as a machine adds its CPUs' slots.
func TestRoomFor(t *testing.T) {
	for _, n := range []int{1, 3, 64} {
		var s []int32
		grew := 0
		for len(s) < 5000 {
			before, l := cap(s), len(s)
			s = roomFor(s, n)
			switch {
			case len(s) != l:
				t.Fatalf("n=%d at %d: length %d", n, l, len(s))
			case l+n <= before && cap(s) != before:
				t.Fatalf("n=%d at %d: capacity %d became %d with room left", n, l, before, cap(s))
			case l+n > before && cap(s) < max(2*before, l+n):
				t.Fatalf("n=%d at %d: %d short of room, grew only to %d", n, l, before, cap(s))
			}
			if cap(s) != before {
				grew++
				for j, v := range s {
					if v != int32(j) {
						t.Fatalf("n=%d at %d: element %d is %d after growing", n, l, j, v)
					}
				}
			}
			c := cap(s)
			for range n {
				s = append(s, int32(len(s)))
			}
			if cap(s) != c {
				t.Fatalf("n=%d at %d: append grew the slice from %d to %d", n, l, c, cap(s))
			}
		}
		if grew > 14 { // doubling from 1 reaches 5000 in 13 steps; size classes round up
			t.Errorf("n=%d: grew %d times for 5000 elements", n, grew)
		}
	}
}
