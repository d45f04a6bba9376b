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
// Removing the earliest event leaves a hole at the root, which the queue fills only when it
// must: an event armed next goes straight into it, one descent instead of a removal's and an
// insertion's (the machine often arms an event right after taking one, a woken thread's run or
// the IPI that starts it).
//
// Invariant: pos[h[i].slot] == i+1 for every i (but 0 if hole), pos[s] == 0 for every slot s
// not in h, and !h[i].before(&h[(i-1)/4]) for every i > 0 (i > 4 if hole); if hole, len(h) > 1.
type eventQueue struct {
	h    []event
	pos  []int32
	seq  uint64
	hole bool // h[0] is not an event
}

// addSlots makes room for n more slots.
func (q *eventQueue) addSlots(n int) {
	q.pos = append(q.pos, make([]int32, n)...)
}

func (q *eventQueue) len() int {
	if q.hole {
		return len(q.h) - 1
	}
	return len(q.h)
}

// top returns the earliest event. Preconditions: the queue is not empty.
func (q *eventQueue) top() *event {
	if q.hole {
		q.fillHole()
	}
	return &q.h[0]
}

// fillHole fills the hole at the root with the last event. Preconditions: hole.
func (q *eventQueue) fillHole() {
	q.hole = false
	last := len(q.h) - 1
	moved := q.h[last]
	q.h = q.h[:last]
	q.fill(0, moved)
}

// pending reports whether slot s is armed.
func (q *eventQueue) pending(s int32) bool { return q.pos[s] != 0 }

// arm sets slot s to fire at t, after every event already armed for t. The complexity is
// O(log n).
func (q *eventQueue) arm(s int32, t int64) {
	q.seq++
	e := event{t: t, seq: q.seq, slot: s}
	if q.hole {
		if q.pos[s] == 0 {
			q.hole = false
			q.fill(0, e)
			return
		}
		q.fillHole()
	}
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

// timeOf returns the time slot s is armed for. Preconditions: s is pending.
func (q *eventQueue) timeOf(s int32) int64 { return q.h[q.pos[s]-1].t }

// disarm removes slot s if it is armed. The complexity is O(log n).
func (q *eventQueue) disarm(s int32) {
	p := q.pos[s]
	if p == 0 {
		return
	}
	if q.hole {
		q.fillHole()
		p = q.pos[s]
	}
	i := int(p - 1)
	q.pos[s] = 0
	last := len(q.h) - 1
	if i == 0 && last > 0 {
		q.hole = true
		return
	}
	if i != last {
		moved := q.h[last]
		q.h = q.h[:last]
		if i > 0 && moved.before(&q.h[(i-1)/4]) {
			q.h[i] = moved
			q.up(i)
		} else {
			q.fill(i, moved)
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

// earliest returns the earliest of the children h[c:min(c+4, len(h))] (c < len(h)) and its time
// and sequence number: the child that moves up in down and fill. A full set of four is compared
// as two pairs and their winners, three comparisons with the keys in registers.
func earliest(h []event, c int) (int, int64, uint64) {
	if c+3 < len(h) {
		return earliest4(c, (*[4]event)(h[c:c+4]))
	}
	ch := h[c:]
	best, bt, bq := 0, ch[0].t, ch[0].seq
	for j := 1; j < len(ch); j++ {
		if t := ch[j].t; t < bt || t == bt && ch[j].seq < bq {
			best, bt, bq = j, t, ch[j].seq
		}
	}
	return c + best, bt, bq
}

// earliest4 is earliest for the four children ch, the first of which is h[c].
func earliest4(c int, ch *[4]event) (int, int64, uint64) {
	i, t, q := 0, ch[0].t, ch[0].seq
	if t1 := ch[1].t; t1 < t || t1 == t && ch[1].seq < q {
		i, t, q = 1, t1, ch[1].seq
	}
	j, u, r := 2, ch[2].t, ch[2].seq
	if t3 := ch[3].t; t3 < u || t3 == u && ch[3].seq < r {
		j, u, r = 3, t3, ch[3].seq
	}
	if u < t || u == t && r < q {
		i, t, q = j, u, r
	}
	return c + i, t, q
}

// down moves h[i] down to its place.
func (q *eventQueue) down(i int) {
	h := q.h
	n := len(h)
	e := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		c, t, seq := earliest(h, c)
		if t > e.t || t == e.t && seq > e.seq {
			break
		}
		h[i] = h[c]
		q.pos[h[i].slot] = int32(i + 1)
		i = c
	}
	h[i] = e
	q.pos[e.slot] = int32(i + 1)
}

// fill fills the hole at i, left by a removed event, with e, which is not before the hole's
// parent: as Floyd's variant of heapsort does, it moves the hole down to a leaf along the
// earliest children without comparing them with e, then moves e up from there. The event that
// fills a hole comes from the heap's end, so it usually belongs near the leaves again, and this
// spares a comparison per level.
func (q *eventQueue) fill(i int, e event) {
	h := q.h
	n := len(h)
descend:
	for {
		c := 4*i + 1
		switch {
		case c+3 < n:
			// earliest4, written out: fill is the queue's hottest loop.
			ch := (*[4]event)(h[c : c+4])
			k, t, q := 0, ch[0].t, ch[0].seq
			if t1 := ch[1].t; t1 < t || t1 == t && ch[1].seq < q {
				k, t, q = 1, t1, ch[1].seq
			}
			j, u, r := 2, ch[2].t, ch[2].seq
			if t3 := ch[3].t; t3 < u || t3 == u && ch[3].seq < r {
				j, u, r = 3, t3, ch[3].seq
			}
			if u < t || u == t && r < q {
				k = j
			}
			c += k
		case c < n:
			c, _, _ = earliest(h, c)
		default:
			break descend
		}
		h[i] = h[c]
		q.pos[h[i].slot] = int32(i + 1)
		i = c
	}
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		q.pos[h[i].slot] = int32(i + 1)
		i = p
	}
	h[i] = e
	q.pos[e.slot] = int32(i + 1)
}
