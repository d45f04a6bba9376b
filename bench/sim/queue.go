package sim

import (
	"math"
	"math/bits"
	"slices"
)

// This file implements the event queue: an indexed 4-ary min-heap of timed events ordered by
// (time, sequence number), one slot per kind of event per CPU or thread, and threads' timers
// grouped by time. Four children per node halve the depth of a binary heap; with a thousand
// sleeping threads' timers that saves more cache misses on the way down than the extra
// comparisons cost. Periodic threads' timers fall on few distinct times, and grouping them keeps
// the heap small.

// An event is a slot armed for time t (for a group of timers, its head); seq breaks ties in
// order of arming.
type event struct {
	t    int64
	seq  uint64
	slot int32
}

func (a *event) before(b *event) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// An eventQueue holds at most one pending event per slot. Arming a slot that is already pending
// moves it, after every event already armed for the new time. It does not allocate once its
// slots exist. A slot is either plain (arm, disarm, pending, timeOf), every one an event in the
// heap, or a timer (armTimer, disarmTimer, timerPending, timerTime), which groups with the
// timers armed for its time.
//
// Removing the earliest event leaves a hole at the root, which the queue fills only when it
// must: an event armed next goes straight into it, one descent instead of a removal's and an
// insertion's (the machine often arms an event right after taking one, a woken thread's run or
// the IPI that starts it).
//
// armLater moves a plain slot to a later time without moving it in the heap: its new key
// waits in late until the old one comes to the root, where top moves it down, unless the slot
// is armed or disarmed first. A key only grows that way, so the heap's order of the old keys
// still finds the earliest event: the root's key is at most every other entry's, which is at
// most that entry's late key. The order events come out in, ties included, is that of their
// keys, as if armLater had moved the slot at once. The machine pushes a running thread's end
// later at every interrupt that stalls it (each CPU's at every clock interrupt, under a
// Costs.Tick): one store each, and one descent at most when the old time comes, often none (the
// thread stops, or another interrupt comes, first). A late key is one whose sequence number is
// above its slot's entry's: an arm or a disarm leaves a stale one behind, below every sequence
// number armed since, so neither needs to clear it. A queue that never deferred a move (no
// interrupt costs) does not look for late keys (lazy).
//
// Invariant: pos[h[i].slot] == i+1 for every i (but 0 if hole), pos[s] == -1 for a group's head
// in the timer wheel (wheel.go), pos[s] == 0 for every other slot s, and !h[i].before(&h[(i-1)/4])
// for every i > 0 (i > 4 if hole); if hole, len(h) > 1. If late[h[i].slot].seq > h[i].seq, the
// late key is after h[i]'s (and h[i] is not a group's). cap(h) >= 1, and if hole or len(h) == 0,
// h[:1][0].t is math.MaxInt64: top tests the root's time against lim alone, and a hole, an empty
// heap, a late key (lim is math.MinInt64 once lazy) or a root not before the wheel's horizon
// all send it to settleTop.
//
// Timers armed for one time join a group, and a group armed for a time far enough ahead waits
// in the timer wheel (wheel.go) until the horizon reaches its bucket: a circular list in order of arming, whose first timer
// (its head) stands for it in the heap, with the time and sequence number of the group's
// creation. When the head is taken, the next timer of the group takes its place in the heap, in
// O(1). A timer alone at its time is a group of one, the heap's entry as without groups.
//
// A small direct-mapped cache finds the newest group of a time. When it has lost the group
// (another time took its line), a timer armed for that time starts a new group, which the heap
// orders after the older one by its sequence number. The order stays exact, (time, arming),
// since no timer joins a group once a newer event of its time exists: the cache names only the
// newest group, and arming a plain slot clears its time's line. A line names a live group of
// time t iff the slot it names is in the heap and armed for t.
//
// Invariant, for timers: s is pending iff ring[s].next >= 0; then ring[s].t is its time and
// ring[s].prev, ring[s].next its neighbours in its group's list, all armed for ring[s].t; s is
// in the heap iff it is its group's head, and then with time ring[s].t. Plain slots' rings are
// unused (next < 0).
type eventQueue struct {
	h     []event
	pos   []int32
	seq   uint64
	hole  bool  // h[0] is not an event
	lazy  bool  // armLater has left a slot in its place: top must look for a late key at the root
	late  []key // by slot: the key armLater gave it, if its sequence number is above its entry's
	ring  []ring
	cache *[cacheLines]int32 // a hash of a time -> its newest group's head + 1, or a stale or 0 entry
	// The timer wheel (wheel.go): groups armed for horizon or later wait in buckets, a list
	// each (far links them, by slot), nfar of them.
	far     []farLink
	buckets *[wheelBuckets]int32 // a bucket's first group's head + 1, or 0
	nfar    int
	horizon int64
	// lim is math.MinInt64 if lazy, else horizon if nfar > 0, else math.MaxInt64: a root at
	// lim or later may not be the earliest event (top's one test for all three).
	lim int64
}

// cacheLines is the size of eventQueue's cache, fixed so that a line's index needs no bounds
// check; a thousand periodic threads use a hundred times or so.
const (
	cacheBits  = 12
	cacheLines = 1 << cacheBits
)

// A key is an event's time and sequence number, without its slot.
type key struct {
	t   int64
	seq uint64
}

// A ring places a timer in its group.
type ring struct {
	t          int64
	prev, next int32 // neighbours in the group's circular list; next < 0 if not pending
}

// addSlots makes room for n more slots.
func (q *eventQueue) addSlots(n int) {
	q.pos, q.late, q.far, q.ring = roomFor(q.pos, n), roomFor(q.late, n), roomFor(q.far, n), roomFor(q.ring, n)
	q.pos = append(q.pos, make([]int32, n)...)
	q.late = append(q.late, make([]key, n)...)
	q.far = append(q.far, make([]farLink, n)...)
	for range n {
		q.ring = append(q.ring, ring{prev: -1, next: -1})
	}
	if q.cache == nil {
		q.cache = new([cacheLines]int32)
		q.buckets = new([wheelBuckets]int32)
		q.lim = math.MaxInt64
		q.h = make([]event, 1, 16)[:0]
		q.h[:1][0].t = math.MaxInt64
	}
}

// grow reserves room for n more slots.
func (q *eventQueue) grow(n int) {
	q.pos = slices.Grow(q.pos, n)
	q.late = slices.Grow(q.late, n)
	q.far = slices.Grow(q.far, n)
	q.ring = slices.Grow(q.ring, n)
}

// empty reports whether no slot is armed.
func (q *eventQueue) empty() bool { return len(q.h) == 0 && q.nfar == 0 }

// top returns the earliest event. Preconditions: the queue is not empty.
func (q *eventQueue) top() *event {
	if e := &q.h[:1][0]; e.t < q.lim {
		return e
	}
	return q.settleTop()
}

// settleTop fills the hole at the root, if any, moves each root that armLater moved (a late
// key) down to its place, and moves the wheel's groups into the heap until the root is before
// the horizon or the wheel empty: the root is then the earliest event, which it returns.
func (q *eventQueue) settleTop() *event {
	for {
		if q.hole {
			q.fillHole()
		}
		if len(q.h) > 0 {
			for e := &q.h[0]; ; e = &q.h[0] {
				l := q.late[e.slot]
				if l.seq <= e.seq {
					break
				}
				e.t, e.seq = l.t, l.seq
				q.down(0)
			}
			if q.nfar == 0 || q.h[0].t < q.horizon {
				return &q.h[0]
			}
		}
		q.advance()
	}
}

// fillHole fills the hole at the root with the last event. Preconditions: hole.
func (q *eventQueue) fillHole() {
	q.hole = false
	last := len(q.h) - 1
	moved := q.h[last]
	q.h = q.h[:last]
	q.fill(0, moved)
}

// pending reports whether plain slot s is armed.
func (q *eventQueue) pending(s int32) bool { return q.pos[s] != 0 }

// arm sets plain slot s to fire at t, after every event already armed for t. The complexity is
// O(log n).
func (q *eventQueue) arm(s int32, t int64) {
	*q.line(t) = 0 // no timer joins a group of t older than this event
	q.seq++
	e := event{t: t, seq: q.seq, slot: s}
	if q.hole {
		if q.pos[s] == 0 {
			q.hole = false
			q.sink(0, e)
			return
		}
		q.fillHole()
	}
	if p := q.pos[s]; p != 0 {
		i := int(p - 1)
		old := q.h[i]
		q.h[i] = e
		if e.before(&old) {
			q.up(i, e)
		} else {
			q.down(i)
		}
		return
	}
	q.h = append(q.h, e)
	q.pos[s] = int32(len(q.h))
	q.up(len(q.h)-1, e)
}

// armLater sets plain slot s to fire at t, after every event already armed for t, as arm
// does; when s is pending for an earlier time, it leaves it in its place and keeps t in late
// (see eventQueue). The complexity is O(1) then.
func (q *eventQueue) armLater(s int32, t int64) {
	p := q.pos[s]
	if p == 0 || t < q.h[p-1].t {
		q.arm(s, t)
		return
	}
	*q.line(t) = 0 // as arm
	q.seq++
	q.late[s] = key{t, q.seq}
	q.lazy = true
	q.lim = math.MinInt64
}

// timeOf returns the time plain slot s (or a group's head) is armed for. Preconditions: s is
// pending.
func (q *eventQueue) timeOf(s int32) int64 {
	e := &q.h[q.pos[s]-1]
	if l := &q.late[s]; l.seq > e.seq {
		return l.t
	}
	return e.t
}

// rename makes new, not pending, stand for old, a group's head, at its place.
func (q *eventQueue) rename(old, new int32) {
	p := q.pos[old]
	if p < 0 {
		q.renameFar(old, new)
		return
	}
	q.h[p-1].slot = new
	q.pos[new] = p
	q.pos[old] = 0
}

// disarm removes plain slot s (or a group's head, with its group) if it is armed. The
// complexity is O(log n).
func (q *eventQueue) disarm(s int32) {
	p := q.pos[s]
	if p <= 0 {
		if p < 0 {
			q.unlinkFar(s)
		}
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
		q.h[0].t = math.MaxInt64 // not before lim: top settles
		return
	}
	if i != last {
		moved := q.h[last]
		q.h = q.h[:last]
		if i > 0 && moved.before(&q.h[(i-1)/4]) {
			q.up(i, moved)
		} else {
			q.fill(i, moved)
		}
		return
	}
	if last == 0 {
		q.h[0].t = math.MaxInt64 // past the end: not before lim, as top requires
	}
	q.h = q.h[:last]
}

// up moves e up from i, whose event it replaces, to its place.
func (q *eventQueue) up(i int, e event) {
	h := q.h
	for i > 0 {
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		q.put(h, i, h[p])
		i = p
	}
	q.put(h, i, e)
}

// put stores e at h[i], where h is q.h, and records its place.
func (q *eventQueue) put(h []event, i int, e event) {
	h[i] = e
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

// earliest4 is earliest for the four children ch, the first of which is h[c]. It selects
// without branching (see earlierMask): which child is earliest is as random as the events'
// times, and a mispredicted branch at every level of a descent cost more than the arithmetic.
func earliest4(c int, ch *[4]event) (int, int64, uint64) {
	ta, qa, ia := earlierOf(&ch[0], &ch[1])
	tb, qb, ib := earlierOf(&ch[2], &ch[3])
	m := earlierMask(tb, qb, ta, qa)
	return c + int(ia^(ia^(2+ib))&m), ta ^ (ta^tb)&m, qa ^ (qa^qb)&uint64(m)
}

// earlierOf returns the time and sequence number of the earlier of a and b, and which one it is:
// 0 for a, 1 for b. It selects with earlierMask's mask, without a branch, and inlines, so that
// sink and fill, which earliest4 is too large to inline into, select the earliest of four
// children with it as earliest4 does.
func earlierOf(a, b *event) (int64, uint64, int64) {
	m := earlierMask(b.t, b.seq, a.t, a.seq)
	return a.t ^ (a.t^b.t)&m, a.seq ^ (a.seq^b.seq)&uint64(m), m & 1
}

// earlierMask returns -1 (all ones) if (t0, q0) comes before (t1, q1), times first, else 0:
// the sign of their 128-bit difference, with no branch. Times are never negative, so the
// difference of two fits.
func earlierMask(t0 int64, q0 uint64, t1 int64, q1 uint64) int64 {
	_, borrow := bits.Sub64(q0, q1, 0)
	d, _ := bits.Sub64(uint64(t0), uint64(t1), borrow)
	return int64(d) >> 63
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
		q.put(h, i, h[c])
		i = c
	}
	q.put(h, i, e)
}

// sink fills the hole at i with e, which is not before the hole's parent, moving it down to its
// place: the earliest children move up while they are before e. An event armed into the hole at
// the root (arm) is often due soon (a run's end), and stops a level or two down, where fill
// would descend to a leaf and come back up.
func (q *eventQueue) sink(i int, e event) {
	h := q.h
	n := len(h)
	for {
		c := 4*i + 1
		var t int64
		var sq uint64
		switch {
		case c+3 < n:
			// earliest4, written out with its inlined halves (it does not inline itself).
			ch := (*[4]event)(h[c : c+4])
			ta, qa, ia := earlierOf(&ch[0], &ch[1])
			tb, qb, ib := earlierOf(&ch[2], &ch[3])
			m := earlierMask(tb, qb, ta, qa)
			c, t, sq = c+int(ia^(ia^(2+ib))&m), ta^(ta^tb)&m, qa^(qa^qb)&uint64(m)
		case c < n:
			c, t, sq = earliest(h, c)
		default:
			q.put(h, i, e)
			return
		}
		if t > e.t || t == e.t && sq > e.seq {
			q.put(h, i, e)
			return
		}
		q.put(h, i, h[c])
		i = c
	}
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
			// earliest4's choice, written out with its inlined halves (it does not inline
			// itself): fill is the queue's hottest loop, and needs only the child.
			ch := (*[4]event)(h[c : c+4])
			ta, qa, ia := earlierOf(&ch[0], &ch[1])
			tb, qb, ib := earlierOf(&ch[2], &ch[3])
			c += int(ia ^ (ia^(2+ib))&earlierMask(tb, qb, ta, qa))
		case c < n:
			c, _, _ = earliest(h, c)
		default:
			break descend
		}
		q.put(h, i, h[c])
		i = c
	}
	q.up(i, e)
}

// line returns the cache line of time t.
func (q *eventQueue) line(t int64) *int32 {
	return &q.cache[uint64(t)*0x9E3779B97F4A7C15>>(64-cacheBits)]
}

// newest returns the head of the newest group of t that line l names, or -1.
func (q *eventQueue) newest(l *int32, t int64) int32 {
	if c := *l - 1; c >= 0 && q.pos[c] != 0 && q.ring[c].t == t {
		return c
	}
	return -1
}

// timerPending reports whether timer s is armed.
func (q *eventQueue) timerPending(s int32) bool { return q.ring[s].next >= 0 }

// timerTime returns the time timer s is armed for. Preconditions: s is pending.
func (q *eventQueue) timerTime(s int32) int64 { return q.ring[s].t }

// armTimer sets timer s to fire at t, after every event already armed for t. The complexity is
// O(log n).
func (q *eventQueue) armTimer(s int32, t int64) {
	l := q.line(t)
	if r := &q.ring[s]; r.next >= 0 {
		if r.next == s {
			// s is alone in its group.
			switch c := q.newest(l, t); c {
			case s:
				return // and its group is the newest of t: s stays last at t
			case -1:
				// Move the group: with a new sequence number it goes after every event of t.
				q.armHead(s, t)
				r.t = t
				*l = s + 1
				return
			}
		}
		q.remove(s)
	}
	if c := q.newest(l, t); c >= 0 {
		hd := &q.ring[c]
		tl := hd.prev
		q.ring[s] = ring{t: t, prev: tl, next: c}
		q.ring[tl].next = s
		hd.prev = s
	} else {
		q.ring[s] = ring{t: t, prev: s, next: s}
		q.armHead(s, t)
		*l = s + 1
	}
}

// remove takes pending timer s out of its group, and the group out of the heap if s was alone.
func (q *eventQueue) remove(s int32) {
	r := &q.ring[s]
	if r.next == s {
		q.disarm(s)
	} else {
		q.ring[r.prev].next = r.next
		q.ring[r.next].prev = r.prev
		if q.pos[s] != 0 {
			// s was the head: the next timer stands for the group.
			q.rename(s, r.next)
			if l := q.line(r.t); *l == s+1 {
				*l = r.next + 1
			}
		}
	}
	r.next = -1
}

// disarmTimer removes timer s if it is armed. The complexity is O(log n).
func (q *eventQueue) disarmTimer(s int32) {
	if q.ring[s].next >= 0 {
		q.remove(s)
	}
}

// roomFor returns s with room for n more elements, at least doubling its capacity when it has
// too little. append alone grows a large slice by about a quarter, so a table filled one element
// at a time (the machine's threads, as a build forks them) is copied some four times over its
// final size; doubling copies it about once.
func roomFor[S ~[]E, E any](s S, n int) S {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, len(s)))
}
