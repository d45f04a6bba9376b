package cfs

import (
	"encoding/binary"
	"math/big"
	"testing"
)

// rigSpec describes one entity of a queue built directly by rigEEVDF: its nice level, its
// vruntime as an offset from the queue's reference point, its deadline as an offset from its
// vruntime, and its slice.
type rigSpec struct {
	nice     int
	dv       int64
	dd       uint64
	slice    uint64
	idle     bool
	sameAsDl int    // if > 0, the deadline is copied from spec sameAsDl-1 (ties)
	weight   uint64 // if not 0, the load weight (as for a group entity), overriding nice
}

// rigEEVDF returns a CPU with parameters p whose root queue holds one task per spec, placed
// directly (no placement rules): the reference point is base, spec curr (if >= 0) is the
// running entity, the others are on the timeline. It checks the CPU's invariants.
func rigEEVDF(tb testing.TB, p Params, base uint64, specs []rigSpec, curr int) (*RunQueue, []*Entity) {
	tb.Helper()
	c := NewRunQueue(0, p)
	q := c.Root()
	q.minVruntime = base
	ts := make([]*Entity, len(specs))
	for i, s := range specs {
		pol := Normal
		if s.idle {
			pol = Idle
		}
		e := NewTask(string(rune('a'+i%26)), pol, s.nice)
		c.attach(e)
		e.Vruntime = base + uint64(s.dv)
		e.Deadline = e.Vruntime + s.dd
		if s.sameAsDl > 0 && s.sameAsDl-1 < i {
			e.Deadline = ts[s.sameAsDl-1].Deadline
		}
		e.Slice = s.slice
		if s.weight != 0 {
			e.load = LoadWeight{Weight: s.weight}
		}
		ts[i] = e
	}
	for i, e := range ts {
		if i == curr {
			q.curr, c.curr = e, e
		} else {
			q.enqueueTree(e)
		}
		e.onRQ = true
		q.load = q.load.add(e.load.Weight)
		q.nrRunning++
		q.hNrRunning++
		q.hNrRunnable++
		if e.IsIdle() {
			q.idleNrRunning++
			q.idleHNrRunning++
		}
	}
	checkCPU(tb, c, nil)
	return c, ts
}

// decodeEEVDF turns fuzz bytes into a queue: a header byte selecting the version (bit 0: v6.6
// or a later one; with bit 0, bit 5 chooses v6.18 over v7.1), the running entity and features,
// then 8 bytes per entity.
func decodeEEVDF(tb testing.TB, data []byte) (*RunQueue, []*Entity, bool) {
	if len(data) < 2 {
		return nil, nil, false
	}
	h := data[0]
	p := preset(V66, 1+int(h>>6))
	switch {
	case h&1 != 0 && h&32 != 0:
		p = preset(V618, 1+int(h>>6))
	case h&1 != 0:
		p = preset(V71, 1+int(h>>6))
	}
	p.RunToParity = h&2 != 0
	p.NextBuddy = h&4 != 0
	p.PickBuddy = h&8 != 0 && p.Version >= V618      // a v6.12 feature: Validate refuses it in v6.6
	base := InitialMinVruntime + uint64(data[1])<<24 // the u64 wrap lies nearby
	data = data[2:]
	var specs []rigSpec
	for len(data) >= 8 && len(specs) < 32 {
		b := data[:8]
		data = data[8:]
		specs = append(specs, rigSpec{
			nice:     int(b[0]%40) - 20,
			idle:     b[0] >= 240,
			dv:       int64(int16(binary.LittleEndian.Uint16(b[1:]))) << 12, // ±134 ms
			dd:       uint64(binary.LittleEndian.Uint16(b[3:])) << 8,
			slice:    minCustomSlice + uint64(b[5])*50_000,
			sameAsDl: int(b[6] % 4),
		})
	}
	if len(specs) == 0 {
		return nil, nil, false
	}
	curr := -1
	if h&16 != 0 {
		curr = int(h>>5) % len(specs)
	}
	c, ts := rigEEVDF(tb, p, base, specs, curr)
	q := c.Root()
	if curr >= 0 {
		e := ts[curr]
		// v6.6: the deadline stashed at the pick; v7.1: a protection point around the vruntime.
		if h&32 != 0 {
			e.VLag = int64(e.Deadline)
		}
		e.VProt = e.Vruntime + uint64(int64(int8(data0(specs[curr].dv))))*10_000
	}
	if h&4 != 0 || h&8 != 0 {
		q.next = ts[len(ts)-1]
	}
	return c, ts, true
}

// data0 derives a small pseudo-random value from an offset.
func data0(x int64) int64 { return x >> 12 }

// checkEEVDFAgainstModel compares AvgVruntime, eligibility and the pick of q with the naive
// model.
func checkEEVDFAgainstModel(t *testing.T, q *Queue, p Params) {
	t.Helper()
	all := queuedEntities(q)
	if len(all) == 0 {
		if e, r := pickEEVDF(q, true, &p); e != nil || r != pickNone {
			t.Fatalf("pickEEVDF(empty) = %v, %v; want nil, %v", e, r, pickNone)
		}
		return
	}
	// V = floor(Σ w_i v_i / Σ w_i), on offsets from the reference point.
	ver := q.cpu.params.Version
	num, den := new(big.Int), new(big.Int)
	for _, e := range all {
		w := new(big.Int).SetUint64(avgWeight(ver, e.load))
		den.Add(den, w)
		num.Add(num, w.Mul(w, big.NewInt(int64(e.Vruntime-q.minVruntime))))
	}
	want := new(big.Int)
	want.Div(num, den) // Euclidean division: the floor for a positive divisor
	if got := AvgVruntime(q.Sums()); int64(got-q.minVruntime) != want.Int64() {
		t.Fatalf("AvgVruntime() = v0%+d, want v0%+d", int64(got-q.minVruntime), want.Int64())
	}
	v := AvgVruntime(q.Sums())
	probes := []uint64{v, v - 1, v + 1, v + 1000, v - 1000}
	for _, e := range all {
		probes = append(probes, e.Vruntime, e.Vruntime+1, e.Vruntime-1)
	}
	for _, x := range probes {
		if got, want := VruntimeEligible(q.Sums(), x), naiveEligible(q, x); got != want {
			t.Fatalf("VruntimeEligible(V%+d) = %t, want %t", int64(x-v), got, want)
		}
	}
	if !VruntimeEligible(q.Sums(), v) {
		t.Fatalf("the average vruntime itself is not eligible")
	}
	for _, protect := range []bool{true, false} {
		got, gr := pickEEVDF(q, protect, &p)
		want, wr := naivePick(q, protect, p)
		switch {
		case got == nil || want == nil:
			if got != want {
				t.Fatalf("pickEEVDF(protect=%t) = %v (%v), want %v (%v)", protect, got, gr, want, wr)
			}
		case wr == pickEarliestDeadline || wr == pickCurrDeadline:
			// Ties in the deadline may go either way (the kernel's tie-breaking depends on the
			// tree's shape); the deadline and eligibility must be right.
			if (gr != pickEarliestDeadline && gr != pickCurrDeadline) || got.Deadline != want.Deadline || !naiveEligible(q, got.Vruntime) {
				t.Fatalf("pickEEVDF(protect=%t) = %v (%v, deadline %d), want %v (%v, deadline %d)",
					protect, got, gr, got.Deadline, want, wr, want.Deadline)
			}
		default:
			if got != want || gr != wr {
				t.Fatalf("pickEEVDF(protect=%t) = %v (%v), want %v (%v)", protect, got, gr, want, wr)
			}
		}
	}
}

// FuzzEEVDFPick builds random queues (versions v6.6, v6.18 and v7.1, random weights, vruntimes,
// deadlines with ties, slices, running entity, buddy and protection) and holds avg_vruntime,
// eligibility and the O(log n) pick to the naive model.
func FuzzEEVDFPick(f *testing.F) {
	f.Add([]byte{0x13, 0, 0, 0, 0, 0, 1, 5, 0, 0, 20, 1, 0, 0, 2, 5, 1, 0, 1, 0xff, 0xff, 0, 3, 6, 0, 0})
	f.Add([]byte{0x32, 7, 5, 1, 2, 3, 4, 5, 6, 7, 6, 2, 3, 4, 5, 6, 7, 8, 7, 3, 4, 5, 6, 7, 8, 9, 8, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte{0xff, 1, 39, 0, 0x80, 0, 1, 9, 1, 0, 0, 0, 0x7f, 0, 2, 9, 2, 0, 10, 10, 10, 10, 10, 10, 10, 10})
	f.Add([]byte{0x11, 2, 20, 16, 0, 1, 0, 0, 0, 0, 20, 32, 0, 1, 0, 0, 1, 0, 20, 48, 0, 1, 0, 0, 2, 0, 20, 0, 0, 1, 0, 0, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		c, _, ok := decodeEEVDF(t, data)
		if !ok {
			return
		}
		checkEEVDFAgainstModel(t, c.Root(), *c.Params())
	})
}
