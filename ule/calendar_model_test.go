package ule

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/topology"
)

// calModel is a naive model of one CPU's run queues and calendar: slices of thread ids per
// queue, offsets as plain ints, every scan an explicit loop. It follows the specification in
// the doc comments of CalendarIndex, AdvanceCalendar, AdvanceDeqOff, LegacyCalendarIndex,
// FreeBSD9CalendarIndex, LegacyAdvance, LegacyRemove and Pick, written without their modular
// shortcuts. freebsd9 is the 64-queue machinery with the 2011 batch range 152..223, one
// priority per queue.
type calModel struct {
	legacy    bool
	freebsd9  bool
	pickShort bool
	q         [3][256][]int // main uses q[0]; legacy: realtime, timeshare, idle
	where     map[int][2]int
	pri       map[int]uint8
	short     map[int]bool
	ts, deq   int // main: ts_off, deq_off; legacy: idx, ridx
	tsTicks   int
}

func newCalModel(legacy, pickShort bool) *calModel {
	return &calModel{legacy: legacy, pickShort: pickShort, where: map[int][2]int{}, pri: map[int]uint8{}, short: map[int]bool{}}
}

// inWindow reports whether slot lies in the circular window [from, to) of n slots.
func inWindow(slot, from, to, n int) bool {
	for k := from; k != to; k = (k + 1) % n {
		if k == slot {
			return true
		}
	}
	return false
}

func (m *calModel) add(id int, pri uint8, preempted, borrowing bool) {
	rq, idx := 0, int(pri)
	minBatch := uint8(136)
	if m.freebsd9 {
		minBatch = 152
	}
	switch {
	case m.legacy && pri < minBatch:
		idx = int(pri) / 4
	case m.legacy && pri <= 223 && m.pickShort && m.short[id]:
		idx = int(pri) / 4
	case m.legacy && pri <= 223:
		rq = 1
		if preempted || borrowing {
			idx = m.deq
		} else {
			idx = (64*(int(pri)-136)/88 + m.ts) % 64
			if m.freebsd9 {
				idx = (int(pri) - 152 + m.ts) % 64 // 72 priorities, 64 queues: one each, wrapping
			}
			if m.deq != m.ts && idx == m.deq {
				idx = (idx + 63) % 64
			}
		}
	case m.legacy:
		rq, idx = 2, int(pri)/4
	case pri >= 115 && pri <= 223 && m.pickShort && m.short[id]:
		idx = 114
	case pri >= 115 && pri <= 223:
		slot := m.deq
		if !preempted && !borrowing {
			slot = (int(pri) - 115 + m.ts) % 109
			if inWindow(slot, m.deq, m.ts, 109) {
				slot = (m.deq + 108) % 109
			}
		}
		idx = 115 + slot
	}
	if preempted {
		m.q[rq][idx] = append([]int{id}, m.q[rq][idx]...)
	} else {
		m.q[rq][idx] = append(m.q[rq][idx], id)
	}
	m.where[id] = [2]int{rq, idx}
	m.pri[id] = pri
}

func (m *calModel) remove(id int) {
	w := m.where[id]
	i := slices.Index(m.q[w[0]][w[1]], id)
	m.q[w[0]][w[1]] = slices.Delete(m.q[w[0]][w[1]], i, i+1)
	delete(m.where, id)
	empty := len(m.q[w[0]][w[1]]) == 0
	if m.legacy {
		if w[0] == 1 && m.ts != m.deq && empty && w[1] == m.deq {
			m.deq = (w[1] + 1) % 64
		}
		return
	}
	if p := m.pri[id]; p >= 115 && p <= 223 && empty && w[1] == 115+m.deq && m.deq != m.ts {
		m.deq = (m.deq + 1) % 109
		m.catchUp()
	}
}

// catchUp moves the dequeue offset over empty slots up to the insertion offset.
func (m *calModel) catchUp() {
	for m.deq != m.ts && len(m.q[0][115+m.deq]) == 0 {
		m.deq = (m.deq + 1) % 109
	}
}

func (m *calModel) tick() {
	if m.legacy {
		if m.ts == m.deq {
			m.ts = (m.ts + 1) % 64
			if len(m.q[1][m.deq]) == 0 {
				m.deq = m.ts
			}
		}
		return
	}
	if m.ts == m.deq {
		m.tsTicks++
		step := 2
		if m.tsTicks == 4 { // 2, 2, 2, then 1: seven slots every four ticks
			step, m.tsTicks = 1, 0
		}
		m.ts = (m.ts + step) % 109
		m.catchUp()
	}
}

// pick returns the id the CPU would run next, or -1.
func (m *calModel) pick() int {
	first := func(rq, lo, hi int) int {
		for i := lo; i <= hi; i++ {
			if len(m.q[rq][i]) > 0 {
				return m.q[rq][i][0]
			}
		}
		return -1
	}
	if m.legacy {
		if id := first(0, 0, 63); id >= 0 {
			return id
		}
		for k := range 64 {
			if q := m.q[1][(m.deq+k)%64]; len(q) > 0 {
				return q[0]
			}
		}
		return first(2, 0, 63)
	}
	if id := first(0, 0, 114); id >= 0 {
		return id
	}
	for k := range 109 {
		if q := m.q[0][115+(m.deq+k)%109]; len(q) > 0 {
			return q[0]
		}
	}
	return first(0, 224, 255)
}

// runCalendarOps plays ops on a CPUState and the model and compares them after every step.
func runCalendarOps(t *testing.T, ops []byte) {
	if len(ops) < 1 {
		return
	}
	legacy, pickShort, freebsd9 := ops[0]&1 != 0, ops[0]&2 != 0, ops[0]&4 != 0
	ops = ops[1:]
	p := DefaultParams()
	switch {
	case freebsd9:
		p, legacy = FreeBSD9Params(), true
	case legacy:
		p = LegacyParams()
	}
	p.PickShort = pickShort
	c := NewCPUState(0, &p)
	m := newCalModel(legacy, pickShort)
	m.freebsd9 = freebsd9
	threads := map[int]*Thread{}
	next := 0
	all := topology.CPUSetOf(0)
	var trace []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\nlast operations:\n%s", fmt.Sprintf(format, args...), strings.Join(trace[max(0, len(trace)-12):], "\n"))
	}
	for len(ops) >= 2 {
		op, arg := ops[0], ops[1]
		ops = ops[2:]
		trace = append(trace, fmt.Sprintf("op %#x arg %d: offsets %d/%d %d/%d model %d/%d", op, arg, c.TSOff, c.DeqOff, c.Idx, c.Ridx, m.ts, m.deq))
		switch op % 4 {
		case 0, 1: // add a thread of priority arg
			th := InitThread(&Thread{ID: schedIDInternal(next), Priority: arg, BasePri: arg, Class: ClassTimeshare, Affinity: all})
			th.Short = op&0x10 != 0
			var flags AddFlags
			if op&0x20 != 0 {
				flags |= SRQPreempted
			}
			if op&0x40 != 0 {
				flags |= SRQBorrowing
			}
			m.short[next] = th.Short
			c.Add(th, flags)
			m.add(next, arg, flags&SRQPreempted != 0, flags&SRQBorrowing != 0)
			threads[next] = th
			next++
		case 2: // run the next thread: choose and remove it
			th, _ := c.Choose()
			want := m.pick()
			if (th == nil) != (want < 0) || (th != nil && int(th.ID) != want) {
				fail("Choose = %v, model %d", th, want)
			}
			if th != nil {
				m.remove(want)
				c.Cur = nil // the thread leaves: sched_throw
				c.LoadRemove(th)
				c.UpdateLowPri()
				delete(threads, want)
			}
		case 3: // remove an arbitrary queued thread, or tick
			if len(threads) == 0 || arg&1 == 0 {
				c.ClockQueue(1)
				m.tick()
				break
			}
			ids := make([]int, 0, len(threads))
			for id := range threads {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			id := ids[int(arg>>1)%len(ids)]
			c.Remove(threads[id])
			m.remove(id)
			delete(threads, id)
		}
		checkCPU(t, c)
		ts, deq := int(c.TSOff), int(c.DeqOff)
		if legacy {
			ts, deq = int(c.Idx), int(c.Ridx)
		}
		if ts != m.ts || deq != m.deq {
			fail("offsets %d/%d, model %d/%d", ts, deq, m.ts, m.deq)
		}
		for id, th := range threads {
			i, _ := th.Link.Index()
			if w := m.where[id]; int(th.rq) != w[0] || int(i) != w[1] {
				fail("t%d in run queue %d queue %d, model %v", id, th.rq, i, w)
			}
		}
		got, why := Pick(c)
		if want := m.pick(); (got == nil) != (want < 0) || (got != nil && int(got.ID) != want) {
			fail("Pick = %v, model %d", got, want)
		}
		if got != nil {
			if i, _ := got.Link.Index(); why.Queue != i || why.Rule == PickIdle {
				fail("Pick = %v in queue %d, reason %+v", got, i, why)
			}
		}
	}
}

// refCalendarIndex is tdq_runq_add's batch branch as main writes it, with normalize_ts_off's
// modulo at each step.
func refCalendarIndex(pri, tsOff, deqOff uint8, flags AddFlags) uint8 {
	norm := func(offset int) int { return (offset + TSModulo) % TSModulo } // normalize_ts_off
	if flags&(SRQBorrowing|SRQPreempted) != 0 {
		return deqOff
	}
	idx := norm(int(pri) - tsPolMin + int(tsOff))
	if deqOff != tsOff && norm(idx-int(deqOff)) < norm(int(tsOff)-int(deqOff)) {
		idx = norm(int(deqOff) - 1)
	}
	return uint8(idx)
}

// CalendarIndex, whose normalisations are conditional steps, agrees with the kernel's modulo
// arithmetic on every batch priority, pair of offsets and flag.
func TestCalendarIndexMatchesKernel(t *testing.T) {
	for pri := tsPolMin; pri <= tsPolMax; pri++ {
		for ts := range uint8(TSModulo) {
			for deq := range uint8(TSModulo) {
				for _, f := range []AddFlags{SRQBoring, SRQBorrowing, SRQPreempted} {
					if got, want := CalendarIndex(uint8(pri), ts, deq, f), refCalendarIndex(uint8(pri), ts, deq, f); got != want {
						t.Fatalf("CalendarIndex(%d, %d, %d, %v) = %d, want %d", pri, ts, deq, f, got, want)
					}
				}
			}
		}
	}
}

// AdvanceCalendar and AdvanceDeqOff, which take the modulo by conditional steps where they can,
// agree with the kernel's modulo arithmetic: on every u_char offset and tsTicks and stat tick
// counts -300..300, and on every u_char dequeue offset towards every insertion offset with
// random calendar occupancies.
func TestCalendarStepsMatchKernel(t *testing.T) {
	refAdvance := func(tsOff, tsTicks uint8, cnt int) (uint8, uint8) {
		tsTicks += uint8(cnt)
		return uint8((int(tsOff) + 2*cnt - int(tsTicks)/4) % TSModulo), tsTicks % 4
	}
	refDeqOff := func(deqOff, tsOff uint8, knownEmpty bool, st *runq.Status) uint8 {
		for deqOff != tsOff {
			if knownEmpty {
				knownEmpty = false
			} else if st.Has(runq.Index(tsPolMin + int(deqOff))) {
				break
			}
			deqOff = uint8((int(deqOff) + 1) % TSModulo)
		}
		return deqOff
	}
	for ts := range 256 {
		for ticks := range 256 {
			for cnt := -300; cnt <= 300; cnt++ {
				go1, gt := AdvanceCalendar(uint8(ts), uint8(ticks), cnt)
				wo, wt := refAdvance(uint8(ts), uint8(ticks), cnt)
				if go1 != wo || gt != wt {
					t.Fatalf("AdvanceCalendar(%d, %d, %d) = %d, %d, want %d, %d", ts, ticks, cnt, go1, gt, wo, wt)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(6, 1))
	for range 200 {
		var st runq.Status
		for i := range runq.NumQueues {
			if r.IntN(8) == 0 {
				st.Set(runq.Index(i))
			}
		}
		for deq := range 256 {
			for ts := range TSModulo { // an offset of 109 or more the walk would never reach
				for _, known := range []bool{false, true} {
					if got, want := AdvanceDeqOff(uint8(deq), uint8(ts), known, &st), refDeqOff(uint8(deq), uint8(ts), known, &st); got != want {
						t.Fatalf("AdvanceDeqOff(%d, %d, %t) = %d, want %d", deq, ts, known, got, want)
					}
				}
			}
		}
	}
}

func FuzzCalendar(f *testing.F) {
	f.Add([]byte{0, 0, 150, 0, 200, 2, 0, 3, 0, 3, 0, 2, 0})
	f.Add([]byte{1, 0, 140, 0, 223, 0x20, 180, 3, 0, 3, 0, 2, 0, 2, 0})
	f.Add([]byte{3, 0x10, 150, 0, 100, 0, 230, 2, 0, 3, 3, 2, 0})
	f.Add([]byte{0, 0, 223, 3, 0, 3, 0, 3, 0, 0, 115, 0x40, 160, 3, 5, 2, 0})
	f.Add([]byte{4, 0, 216, 0, 203, 0, 140, 3, 0, 2, 0, 0x20, 223, 2, 0, 2, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 1000 { // the checks are quadratic in the number of threads
			ops = ops[:1000]
		}
		runCalendarOps(t, ops)
	})
}

// TestCalendarModel runs long pseudo-random operation streams through the model comparison,
// so that plain `go test` covers what the fuzzer explores.
func TestCalendarModel(t *testing.T) {
	for _, mode := range []byte{0, 1, 2, 3, 4, 6} { // main, legacy, with pick_short; freebsd9 (4, 6)
		for seed := range 20 {
			ops := []byte{mode}
			x := uint32(seed*7919 + 1)
			for range 3000 {
				x = x*1664525 + 1013904223
				op := byte(x >> 24)
				// Ticks and choices often enough that the calendar turns around many times.
				if op%4 == 0 && x>>8&3 == 0 {
					op = 3
				}
				ops = append(ops, op, byte(x>>16))
			}
			t.Run(fmt.Sprintf("mode=%d/seed=%d", mode, seed), func(t *testing.T) { runCalendarOps(t, ops) })
		}
	}
}
