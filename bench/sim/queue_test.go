package sim

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkQueue verifies the invariants of q: positions match, and no event is before its parent;
// a hole at the root holds no event and has events below it.
func checkQueue(t *testing.T, q *eventQueue) {
	t.Helper()
	first := 0
	if q.hole {
		if len(q.h) < 2 {
			t.Fatalf("hole in a heap of %d", len(q.h))
		}
		first = 1
	}
	for i := first; i < len(q.h); i++ {
		if got := q.pos[q.h[i].slot]; got != int32(i+1) {
			t.Fatalf("pos[%d] = %d, want %d", q.h[i].slot, got, i+1)
		}
		if p := (i - 1) / 4; i > 0 && p >= first && q.h[i].before(&q.h[p]) {
			t.Fatalf("h[%d] = %+v is before its parent %+v", i, q.h[i], q.h[p])
		}
	}
	n := 0
	for _, p := range q.pos {
		if p != 0 {
			n++
		}
	}
	if n != q.len() || q.len() != len(q.h)-first {
		t.Fatalf("%d slots armed, %d events, len %d", n, len(q.h)-first, q.len())
	}
}

// TestQueueAgainstModel runs random arm, disarm and pop operations on the queue and on a naive
// model (a map from slot to event, scanned for the minimum), comparing them after each. Pops
// leave a hole at the root; the operation after one is an arm of a new slot, a re-arm or
// disarm of a pending one, or a look at the top, so that each way of filling it runs.
func TestQueueAgainstModel(t *testing.T) {
	const slots = 40
	r := rand.New(rand.NewPCG(1, 1))
	var q eventQueue
	q.addSlots(slots)
	model := map[int32]event{}
	var seq uint64
	for step := range 20000 {
		s := int32(r.IntN(slots))
		switch r.IntN(4) {
		case 0, 1:
			tm := int64(r.IntN(50))
			q.arm(s, tm)
			seq++
			model[s] = event{t: tm, seq: seq, slot: s}
		case 2:
			q.disarm(s)
			delete(model, s)
		case 3:
			// Pop: peek at the earliest without filling a hole, as the machine does.
			if len(model) > 0 {
				var best event
				for _, e := range model {
					if best.seq == 0 || e.before(&best) {
						best = e
					}
				}
				q.disarm(best.slot)
				delete(model, best.slot)
				s = best.slot
			}
		}
		checkQueue(t, &q)
		for ms, e := range model {
			if !q.pending(ms) || q.timeOf(ms) != e.t || q.h[q.pos[ms]-1].seq != e.seq {
				t.Fatalf("step %d: slot %d: pending %v, time %d, seq %d; model %+v", step, ms, q.pending(ms), q.timeOf(ms), q.h[q.pos[ms]-1].seq, e)
			}
		}
		if q.len() != len(model) {
			t.Fatalf("step %d: len %d, model %d", step, q.len(), len(model))
		}
		if len(model) == 0 || r.IntN(2) == 0 {
			continue // leave any hole for the next operation to fill
		}
		var best event
		first := true
		for _, e := range model {
			if first || e.before(&best) {
				best, first = e, false
			}
		}
		if top := *q.top(); top.slot != best.slot || top.t != best.t {
			t.Fatalf("step %d: top %+v, model %+v", step, top, best)
		}
		if q.pending(s) != (model[s] != event{}) {
			t.Fatalf("step %d: pending(%d) = %v", step, s, q.pending(s))
		}
	}
}

func TestQueueFIFOAtEqualTimes(t *testing.T) {
	var q eventQueue
	q.addSlots(10)
	for _, s := range []int32{7, 3, 9, 0, 5} {
		q.arm(s, 100)
	}
	var got []int32
	for q.len() > 0 {
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
