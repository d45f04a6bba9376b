package sim

import "math"

// This file implements the event queue's timer wheel: the groups of timers armed for the
// horizon or later wait in buckets of wheelWidth nanoseconds instead of the heap, and move into
// the heap when the horizon passes their bucket. A thousand sleeping threads whose timers fall
// on distinct times (a drawn Costs.Timer) would otherwise make every descent of the heap
// several levels deeper; in the wheel a timer costs a link and an unlink, and enters the heap
// only in the last wheelWidth before it fires, when it is one of few.
//
// The order does not change: a group keeps its time and sequence number in the wheel and enters
// the heap with them, and the heap's root is the earliest event only when it is before the
// horizon (top moves the next bucket in otherwise), since every group in the wheel is armed for
// the horizon or later. Only timers' groups wait there; plain slots (a CPU's end of run, an IPI,
// the clock interrupt) always go to the heap.
//
// Invariant: pos[s] == -1 iff group head s is in the wheel; then far[s] holds its time (that of
// its group, ring[s].t) and sequence number, far[s].t >= horizon, and s is in the list of bucket
// wheelBucket(far[s].t), linked by far's prev and next. nfar counts them. The horizon is a
// multiple of wheelWidth, or math.MaxInt64 once time has run out, and never moves back; lim (unless lazy) is the horizon while nfar > 0,
// else math.MaxInt64.

const (
	wheelShift   = 20 // a bucket spans 2^20 ns, about 1.05 ms
	wheelWidth   = 1 << wheelShift
	wheelBits    = 12
	wheelBuckets = 1 << wheelBits
	wheelSpan    = wheelWidth * wheelBuckets // about 4.3 s: a lap of the wheel
)

// A farLink places a group of timers in the wheel.
type farLink struct {
	t          int64
	seq        uint64
	prev, next int32 // neighbours in the bucket's list, -1 at its ends
}

// wheelBucket returns the bucket of time t.
func wheelBucket(t int64) int { return int(uint64(t)>>wheelShift) & (wheelBuckets - 1) }

// armHead sets the group of timer s, its head, to fire at t (ring[s].t, already set), after every
// event already armed for t, as arm does for a plain slot: in the heap if t is before the
// horizon, in the wheel otherwise. s is in neither, or is a pending head.
func (q *eventQueue) armHead(s int32, t int64) {
	if t < q.horizon {
		if q.pos[s] < 0 {
			q.unlinkFar(s)
		}
		q.arm(s, t)
		return
	}
	*q.line(t) = 0 // as arm
	q.seq++
	if p := q.pos[s]; p > 0 {
		q.disarm(s)
	} else if p < 0 {
		q.unlinkFar(s)
	}
	q.linkFar(s, t, q.seq)
}

// linkFar puts s in the wheel with time t and sequence number seq.
func (q *eventQueue) linkFar(s int32, t int64, seq uint64) {
	b := &q.buckets[wheelBucket(t)]
	head := *b - 1
	q.far[s] = farLink{t: t, seq: seq, prev: -1, next: head}
	if head >= 0 {
		q.far[head].prev = s
	}
	*b = s + 1
	q.pos[s] = -1
	q.nfar++
	if !q.lazy {
		q.lim = q.horizon
	}
}

// unlinkFar takes s out of the wheel.
func (q *eventQueue) unlinkFar(s int32) {
	f := &q.far[s]
	if f.prev >= 0 {
		q.far[f.prev].next = f.next
	} else {
		q.buckets[wheelBucket(f.t)] = f.next + 1
	}
	if f.next >= 0 {
		q.far[f.next].prev = f.prev
	}
	q.pos[s] = 0
	if q.nfar--; q.nfar == 0 && !q.lazy {
		q.lim = math.MaxInt64
	}
}

// renameFar makes new, not pending, stand for old, a group's head in the wheel, at its place.
func (q *eventQueue) renameFar(old, new int32) {
	f := q.far[old]
	q.far[new] = f
	if f.prev >= 0 {
		q.far[f.prev].next = new
	} else {
		q.buckets[wheelBucket(f.t)] = new + 1
	}
	if f.next >= 0 {
		q.far[f.next].prev = new
	}
	q.pos[new] = -1
	q.pos[old] = 0
}

// advance moves the groups of the horizon's bucket armed before the next multiple of
// wheelWidth into the heap, and the horizon on to it. When the heap is empty, or its root a lap
// or more beyond the horizon, it first moves the horizon to the bucket of the earliest of the
// root and the wheel's groups, so that it does not visit a lap of empty buckets. Preconditions:
// no hole, nfar > 0.
func (q *eventQueue) advance() {
	if len(q.h) == 0 || q.h[0].t-q.horizon >= wheelSpan {
		to := q.farMin()
		if len(q.h) > 0 {
			to = min(to, q.h[0].t)
		}
		q.horizon = max(q.horizon, to&^(wheelWidth-1))
	}
	end := q.horizon + wheelWidth
	if end < q.horizon {
		end = math.MaxInt64 // the last bucket before time runs out takes every group left
	}
	b := &q.buckets[wheelBucket(q.horizon)]
	for s := *b - 1; s >= 0; {
		f := &q.far[s]
		next := f.next
		if f.t < end || end == math.MaxInt64 {
			t, seq := f.t, f.seq
			q.unlinkFar(s)
			q.h = append(q.h, event{t: t, seq: seq, slot: s})
			q.pos[s] = int32(len(q.h))
			q.up(len(q.h)-1, q.h[len(q.h)-1])
		}
		s = next
	}
	q.horizon = end
	if q.nfar > 0 && !q.lazy {
		q.lim = end
	}
}

// farMin returns the earliest time of a group in the wheel. Preconditions: nfar > 0.
func (q *eventQueue) farMin() int64 {
	best := int64(math.MaxInt64)
	for _, h := range q.buckets {
		for s := h - 1; s >= 0; s = q.far[s].next {
			best = min(best, q.far[s].t)
		}
	}
	return best
}
