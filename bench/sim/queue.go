package sim

// This file implements the event queue: an indexed 4-ary min-heap of timed events ordered by
// (time, sequence number), one slot per kind of event per CPU or thread. Four children per node
// halve the depth of a binary heap; with a thousand sleeping threads' timers that saves more
// cache misses on the way down than the extra comparisons cost.

// An event is a slot armed for time t; seq breaks ties in order of arming.
type event struct {
	t    int64
	seq  uint64
	slot int32
}

func (a *event) before(b *event) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// An eventQueue holds at most one pending event per slot. Arming a slot that is already pending
// moves it. It does not allocate once its slots exist.
//
// Invariant: pos[h[i].slot] == i+1 for every i, pos[s] == 0 for every slot s not in h, and
// !h[i].before(&h[(i-1)/4]) for every i > 0.
type eventQueue struct {
	h   []event
	pos []int32
	seq uint64
}

// addSlots makes room for n more slots.
func (q *eventQueue) addSlots(n int) {
	q.pos = append(q.pos, make([]int32, n)...)
}

func (q *eventQueue) len() int { return len(q.h) }

// top returns the earliest event. Preconditions: the queue is not empty.
func (q *eventQueue) top() *event { return &q.h[0] }

// pending reports whether slot s is armed.
func (q *eventQueue) pending(s int32) bool { return q.pos[s] != 0 }

// arm sets slot s to fire at t, after every event already armed for t. The complexity is
// O(log n).
func (q *eventQueue) arm(s int32, t int64) {
	q.seq++
	e := event{t: t, seq: q.seq, slot: s}
	if p := q.pos[s]; p != 0 {
		i := int(p - 1)
		old := q.h[i]
		q.h[i] = e
		if e.before(&old) {
			q.up(i)
		} else {
			q.down(i)
		}
		return
	}
	q.h = append(q.h, e)
	q.pos[s] = int32(len(q.h))
	q.up(len(q.h) - 1)
}

// seqOf returns the sequence number of slot s's event. Preconditions: s is armed.
func (q *eventQueue) seqOf(s int32) uint64 { return q.h[q.pos[s]-1].seq }

// timeOf returns the time slot s is armed for. Preconditions: s is pending.
func (q *eventQueue) timeOf(s int32) int64 { return q.h[q.pos[s]-1].t }

// disarm removes slot s if it is armed. The complexity is O(log n).
func (q *eventQueue) disarm(s int32) {
	p := q.pos[s]
	if p == 0 {
		return
	}
	i := int(p - 1)
	q.pos[s] = 0
	last := len(q.h) - 1
	if i != last {
		moved := q.h[last]
		q.h[i] = moved
		q.pos[moved.slot] = int32(i + 1)
		q.h = q.h[:last]
		if i > 0 && moved.before(&q.h[(i-1)/4]) {
			q.up(i)
		} else {
			q.down(i)
		}
		return
	}
	q.h = q.h[:last]
}

func (q *eventQueue) up(i int) {
	e := q.h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		q.pos[q.h[i].slot] = int32(i + 1)
		i = p
	}
	q.h[i] = e
	q.pos[e.slot] = int32(i + 1)
}

func (q *eventQueue) down(i int) {
	e := q.h[i]
	n := len(q.h)
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		// The earliest of up to four children.
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if q.h[j].before(&q.h[c]) {
				c = j
			}
		}
		if !q.h[c].before(&e) {
			break
		}
		q.h[i] = q.h[c]
		q.pos[q.h[i].slot] = int32(i + 1)
		i = c
	}
	q.h[i] = e
	q.pos[e.slot] = int32(i + 1)
}
