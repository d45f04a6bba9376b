package sched_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// panicText runs f and returns what it panicked with, formatted, or "" if it returned.
func panicText(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// checkTable compares ts with the model, a map, by every reader.
func checkTable(t *testing.T, step int, ts *sched.Threads[int], model map[sched.ID]*int, probes []sched.ID) {
	t.Helper()
	if ts.Len() != len(model) {
		t.Fatalf("step %d: Len = %d, want %d", step, ts.Len(), len(model))
	}
	for _, id := range probes {
		got, ok := ts.Lookup(id)
		want, wok := model[id]
		if ok != wok || got != want {
			t.Fatalf("step %d: Lookup(%d) = %p, %t; want %p, %t", step, id, got, ok, want, wok)
		}
	}
	var ids []sched.ID
	for id, p := range ts.All() {
		if model[id] != p {
			t.Fatalf("step %d: All yields %d → %p, the model has %p", step, id, p, model[id])
		}
		ids = append(ids, id)
	}
	want := make([]sched.ID, 0, len(model))
	for id := range model {
		want = append(want, id)
	}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("step %d: All visits %v, want %v", step, ids, want)
	}
}

// FuzzThreads applies a stream of adds and deletes of dense, far and huge IDs to a table and
// to a map, the model, and compares every reader after each step.
func FuzzThreads(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 1, 0, 200, 2, 0, 0, 3, 1, 5, 0, 0, 255, 255})
	f.Add([]byte{0, 100, 0, 0, 100, 1, 0, 0, 2, 1, 100, 0, 0, 101, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var ts sched.Threads[int]
		model := map[sched.ID]*int{}
		var probes []sched.ID
		for i := 0; i+2 < len(ops); i += 3 {
			var id sched.ID
			switch ops[i+1] % 4 {
			case 0, 1: // dense
				id = sched.ID(ops[i+2])
			case 2: // far
				id = sched.ID(ops[i+2]) * 1000
			default: // huge
				id = math.MaxInt32 - sched.ID(ops[i+2])
			}
			probes = append(probes, id, id+1, id-1)
			if ops[i]%3 == 2 {
				ts.Delete(id)
				delete(model, id)
			} else if _, ok := model[id]; !ok {
				v := i
				ts.Add("test", "Add", id, &v)
				model[id] = &v
			}
			checkTable(t, i/3, &ts, model, probes)
		}
		// Deleting each thread as it is visited empties the table.
		for id := range ts.All() {
			ts.Delete(id)
			delete(model, id)
		}
		checkTable(t, -1, &ts, model, probes)
	})
}

// A table of a few threads with an ID of 2³¹−1 stays small: the far ID goes to the map.
func TestThreadsFarIDCostsNothing(t *testing.T) {
	var ts sched.Threads[int]
	v := 1
	ts.Add("test", "Fork", math.MaxInt32, &v)
	ts.Add("test", "Fork", 0, &v)
	allocs := testing.AllocsPerRun(10, func() {
		if p, ok := ts.Lookup(math.MaxInt32); !ok || p != &v {
			t.Fatal("Lookup(MaxInt32) lost the thread")
		}
	})
	if allocs != 0 {
		t.Errorf("Lookup of a far ID allocates %v times", allocs)
	}
	// Growing the dense part over a far ID moves it there.
	var ts2 sched.Threads[int]
	ts2.Add("test", "Fork", 100, &v)
	for id := range sched.ID(100) {
		ts2.Add("test", "Fork", id, &v)
	}
	if got := slices.Collect(func(yield func(sched.ID) bool) {
		for id := range ts2.All() {
			if !yield(id) {
				return
			}
		}
	}); len(got) != 101 || !slices.IsSorted(got) {
		t.Errorf("All visits %d IDs, sorted %t; want 0..100", len(got), slices.IsSorted(got))
	}
}

// New adds a zeroed record under the ID, distinct from every other, with Add's panics.
func TestThreadsNew(t *testing.T) {
	var ts sched.Threads[[3]int]
	seen := map[*[3]int]bool{}
	for id := range sched.ID(1000) {
		r := ts.New("toy", "Fork", id)
		if *r != [3]int{} || seen[r] {
			t.Fatalf("New(%d) = %p holding %v: want a new zeroed record", id, r, *r)
		}
		seen[r] = true
		r[0] = int(id)
	}
	for id, r := range ts.All() {
		if r[0] != int(id) || ts.Must("toy", "Wakeup", id) != r {
			t.Fatalf("thread %d holds %v", id, *r)
		}
	}
	if got := panicText(func() { ts.New("toy", "Fork", 7) }); got != "toy: Fork of thread t7, which exists" {
		t.Errorf("New of an existing ID: panic %q", got)
	}
}

func TestThreadsMisuse(t *testing.T) {
	var ts sched.Threads[int]
	v := 0
	ts.Add("ule", "Fork", 0, &v)
	for _, tc := range []struct {
		f    func()
		want string
	}{
		{func() { ts.Add("ule", "Fork", -2, &v) }, "ule: Fork of negative thread id -2"},
		{func() { ts.Add("ule", "Fork", 0, &v) }, "ule: Fork of thread t0, which exists"},
		{func() { ts.Add("ule", "Fork", 1, nil) }, "ule: Fork of thread t1 with nil state"},
		{func() { ts.Must("ule", "Wakeup", 9) }, "ule: Wakeup of unknown thread t9"},
		{func() { ts.Must("cfs", "Stop", -1) }, "cfs: Stop of unknown thread t-1"},
		{func() { ts.Must("bsd4", "SetAttr", math.MaxInt32) }, "bsd4: SetAttr of unknown thread t2147483647"},
	} {
		if got := panicText(tc.f); got != tc.want {
			t.Errorf("panic %q, want %q", got, tc.want)
		}
	}
	if p := ts.Must("ule", "Wakeup", 0); p != &v {
		t.Errorf("Must(0) = %p, want %p", p, &v)
	}
}

func TestCPUTable(t *testing.T) {
	var zero sched.CPUTable
	if got := panicText(func() { zero.Check("bsd4", "Pick", 0) }); got != "bsd4: Pick before Start" {
		t.Errorf("zero table: panic %q", got)
	}
	// Six CPUs, of which 1, 3 and 4 are offline: ids with holes.
	spec := topology.UniformSpec(1, 1, 1, 6, 1)
	spec.Offline = topology.CPUSetOf(1, 3, 4)
	topo, err := topology.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	ct := sched.NewCPUTable(topo)
	for c := range topology.CPU(8) {
		want := c == 0 || c == 2 || c == 5
		if ct.Has(c) != want {
			t.Errorf("Has(%v) = %t, want %t", c, ct.Has(c), want)
		}
		msg := panicText(func() { ct.Check("ule", "Tick", c) })
		if want != (msg == "") || !want && msg != fmt.Sprintf("ule: Tick on %v, which is not in the machine", c) {
			t.Errorf("Check(%v): panic %q", c, msg)
		}
	}
	if msg := panicText(func() { ct.Check("ule", "Tick", topology.MaxCPUs+3) }); !strings.HasSuffix(msg, "cpu1027, which is not in the machine") {
		t.Errorf("Check beyond MaxCPUs: panic %q", msg)
	}
}

func TestCheckFreeBSDAttr(t *testing.T) {
	for _, tc := range []struct {
		a    sched.Attr
		want string
	}{
		{sched.Attr{}, ""},
		{sched.Attr{Class: sched.Idle, Nice: 20}, ""},
		{sched.Attr{Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD}, ""},
		{sched.Attr{Nice: 40}, "ule: sched: nice 40 outside -20..20"},
		{sched.Attr{Class: sched.RR, RTPrio: 99}, "ule: rr priority 99 is on the linux scale; FreeBSD's rtprio(2) takes 0..31 (RTScale freebsd)"},
		{sched.Attr{Class: sched.Batch}, "ule: FreeBSD has no SCHED_BATCH class"},
		{sched.Attr{Slice: 3000}, "ule: a requested slice (3000 ns) has no ULE equivalent"},
		{sched.Attr{Group: 2}, "ule: no group scheduling in ULE (group 2)"},
	} {
		err := sched.CheckFreeBSDAttr("ule", "ULE", &tc.a)
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("CheckFreeBSDAttr(%+v) = %v, want %q", tc.a, err, tc.want)
		}
	}
}
