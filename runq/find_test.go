package runq_test

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/runq"
)

// fill builds a Runq with the named tasks at the given indices, in order.
func fill(t *testing.T, spec map[runq.Index][]string) (*runq.Runq[task], map[string]*task) {
	t.Helper()
	q := new(runq.Runq[task])
	byName := map[string]*task{}
	idx := make([]runq.Index, 0, len(spec))
	for i := range spec {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		for _, name := range spec[i] {
			x := newTask(name)
			byName[name] = x
			q.Add(i, &x.Link)
		}
	}
	return q, byName
}

func TestFind(t *testing.T) {
	spec := map[runq.Index][]string{
		3:   {"a3", "b3"},
		63:  {"a63"},
		64:  {"a64", "b64", "c64"},
		120: {"a120"},
		255: {"a255", "b255"},
	}
	// lastB picks the last element whose name starts with "b", declining queues without one: a
	// predicate that skips queues and picks an element other than the head.
	cases := []struct {
		name    string
		r       runq.Range
		pred    string
		wantIdx runq.Index
		wantOK  bool
		picked  string
		visited []runq.Index
	}{
		{"first over everything", runq.FullRange(), "first", 3, true, "a3", []runq.Index{3}},
		{"first, range starts inside a word", runq.Range{Lo: 4, Hi: 255}, "first", 63, true, "a63", []runq.Index{63}},
		{"first, range is one queue", runq.Range{Lo: 64, Hi: 64}, "first", 64, true, "a64", []runq.Index{64}},
		{"first, range is one empty queue", runq.Range{Lo: 65, Hi: 65}, "first", 0, false, "", nil},
		{"first, range between queues", runq.Range{Lo: 121, Hi: 254}, "first", 0, false, "", nil},
		{"first, last queue", runq.Range{Lo: 200, Hi: 255}, "first", 255, true, "a255", []runq.Index{255}},
		{"lastB skips queues", runq.FullRange(), "lastB", 3, true, "b3", []runq.Index{3}},
		{"lastB from 4", runq.Range{Lo: 4, Hi: 255}, "lastB", 64, true, "b64", []runq.Index{63, 64}},
		{"lastB past 64", runq.Range{Lo: 65, Hi: 255}, "lastB", 255, true, "b255", []runq.Index{120, 255}},
		{"lastB declines all", runq.Range{Lo: 63, Hi: 63}, "lastB", 0, false, "", []runq.Index{63}},
		{"never visits every non-empty queue once", runq.FullRange(), "never", 0, false, "", []runq.Index{3, 63, 64, 120, 255}},
		{"never, word-aligned range", runq.Range{Lo: 64, Hi: 127}, "never", 0, false, "", []runq.Index{64, 120}},
		{"never, range ends at a word's last bit", runq.Range{Lo: 0, Hi: 63}, "never", 0, false, "", []runq.Index{3, 63}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := fill(t, spec)
			var visited []runq.Index
			var picked *task
			pred := func(i runq.Index, qq *runq.Queue[task]) bool {
				visited = append(visited, i)
				if qq.Len() == 0 {
					t.Errorf("predicate called on empty queue %d", i)
				}
				switch tc.pred {
				case "first":
					picked = qq.Front()
					return true
				case "lastB":
					picked = nil
					for x := range qq.All() {
						if x.name[0] == 'b' {
							picked = x
						}
					}
					return picked != nil
				}
				return false
			}
			i, ok := q.Find(tc.r, pred)
			if i != tc.wantIdx || ok != tc.wantOK {
				t.Errorf("Find(%v, %s) = %d, %t; want %d, %t", tc.r, tc.pred, i, ok, tc.wantIdx, tc.wantOK)
			}
			if ok && picked.name != tc.picked {
				t.Errorf("Find(%v, %s) picked %s, want %s", tc.r, tc.pred, picked, tc.picked)
			}
			if !slices.Equal(visited, tc.visited) {
				t.Errorf("Find(%v, %s) visited %v, want %v", tc.r, tc.pred, visited, tc.visited)
			}
		})
	}
}

func TestFirstIn(t *testing.T) {
	q, _ := fill(t, map[runq.Index][]string{8: {"rt"}, 56: {"ts1", "ts2"}, 230: {"idle"}})
	cases := []struct {
		r    runq.Range
		want string
	}{
		{runq.FullRange(), "rt"},
		{runq.Range{Lo: 9, Hi: 223}, "ts1"},
		{runq.Range{Lo: 57, Hi: 255}, "idle"},
		{runq.Range{Lo: 57, Hi: 223}, ""},
		{runq.Range{Lo: 0, Hi: 7}, ""},
	}
	for _, tc := range cases {
		x, ok := q.FirstIn(tc.r)
		if ok != (tc.want != "") || (ok && x.name != tc.want) {
			t.Errorf("FirstIn(%v) = %v, %t; want %q", tc.r, x, ok, tc.want)
		}
	}
}

func TestFindCircular(t *testing.T) {
	// The timeshare calendar of ULE main: range 56..223, scanned from the dequeue offset.
	ts := runq.Range{Lo: 56, Hi: 223}
	spec := map[runq.Index][]string{56: {"a"}, 100: {"b"}, 150: {"c"}, 223: {"d"}, 224: {"idle"}}
	cases := []struct {
		name    string
		start   runq.Index
		accept  map[runq.Index]bool
		want    runq.Index
		wantOK  bool
		visited []runq.Index
	}{
		{"from the range start", 56, nil, 56, true, []runq.Index{56}},
		{"from the middle", 101, nil, 150, true, []runq.Index{150}},
		{"from the end", 223, nil, 223, true, []runq.Index{223}},
		{"wraps to the start", 101, map[runq.Index]bool{56: true}, 56, true, []runq.Index{150, 223, 56}},
		{"wraps and stops before start", 101, map[runq.Index]bool{}, 0, false, []runq.Index{150, 223, 56, 100}},
		{"start on a queue, nothing scanned twice", 100, map[runq.Index]bool{}, 0, false, []runq.Index{100, 150, 223, 56}},
		{"start at Lo scans once", 56, map[runq.Index]bool{}, 0, false, []runq.Index{56, 100, 150, 223}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := fill(t, spec)
			var visited []runq.Index
			i, ok := q.FindCircular(ts, tc.start, func(i runq.Index, _ *runq.Queue[task]) bool {
				visited = append(visited, i)
				return tc.accept == nil || tc.accept[i]
			})
			if i != tc.want || ok != tc.wantOK {
				t.Errorf("FindCircular(%v, %d) = %d, %t; want %d, %t", ts, tc.start, i, ok, tc.want, tc.wantOK)
			}
			if !slices.Equal(visited, tc.visited) {
				t.Errorf("FindCircular(%v, %d) visited %v, want %v", ts, tc.start, visited, tc.visited)
			}
		})
	}
}

func TestSteal(t *testing.T) {
	// "p" tasks are pinned; the thief may take any other.
	spec := map[runq.Index][]string{10: {"p1"}, 60: {"p2", "x60", "y60"}, 61: {"x61"}, 230: {"p3", "x230"}}
	movable := func(x *task) bool { return x.name[0] != 'p' }
	cases := []struct {
		r    runq.Range
		want string
	}{
		{runq.FullRange(), "x60"},
		{runq.Range{Lo: 0, Hi: 59}, ""},
		{runq.Range{Lo: 61, Hi: 223}, "x61"},
		{runq.Range{Lo: 224, Hi: 255}, "x230"},
	}
	for _, tc := range cases {
		q, _ := fill(t, spec)
		x, ok := q.Steal(tc.r, movable)
		if ok != (tc.want != "") || (ok && x.name != tc.want) {
			t.Errorf("Steal(%v, movable) = %v, %t; want %q", tc.r, x, ok, tc.want)
		}
	}
}

func TestFold(t *testing.T) {
	cases := []struct {
		f         runq.Fold
		pri       uint8
		want      runq.Index
		numQueues int
	}{
		{runq.NoFold, 0, 0, 256},
		{runq.NoFold, 255, 255, 256},
		{runq.NoFold, 120, 120, 256},
		{runq.LegacyFold, 0, 0, 64},
		{runq.LegacyFold, 3, 0, 64},
		{runq.LegacyFold, 4, 1, 64},
		{runq.LegacyFold, 47, 11, 64},
		{runq.LegacyFold, 255, 63, 64},
	}
	for _, tc := range cases {
		if got := tc.f.Index(tc.pri); got != tc.want {
			t.Errorf("Fold(%d).Index(%d) = %d, want %d", tc.f, tc.pri, got, tc.want)
		}
		if got := tc.f.NumQueues(); got != tc.numQueues {
			t.Errorf("Fold(%d).NumQueues() = %d, want %d", tc.f, got, tc.numQueues)
		}
	}
	if got, want := runq.LegacyFold.Range(16, 47), (runq.Range{Lo: 4, Hi: 11}); got != want {
		t.Errorf("LegacyFold.Range(16, 47) = %v, want %v", got, want)
	}
}

// posixQueues returns the distinct queues that the 32 POSIX SCHED_FIFO/SCHED_RR priorities
// occupy: priority q maps to internal priority minRealtime + 31 - q (p4prio_to_rtpprio and
// rtp_to_pri in FreeBSD), which the fold maps to a queue.
func posixQueues(f runq.Fold, minRealtime uint8) []runq.Index {
	var qs []runq.Index
	for q := range 32 {
		i := f.Index(minRealtime + 31 - uint8(q))
		if !slices.Contains(qs, i) {
			qs = append(qs, i)
		}
	}
	slices.Sort(qs)
	return qs
}

// TestPOSIXLevels is seed 003's motivation: with the legacy fold the 32 POSIX levels collapse
// into 8 queues, and two threads four levels apart do not preempt each other; with 256 queues all
// 32 stay distinct. PRI_MIN_REALTIME is 16 in the legacy layout and 8 in main (sys/sys/priority.h).
func TestPOSIXLevels(t *testing.T) {
	if got := posixQueues(runq.LegacyFold, 16); len(got) != 8 {
		t.Errorf("legacy: 32 POSIX levels occupy %d queues %v, want 8", len(got), got)
	}
	if got := posixQueues(runq.NoFold, 8); len(got) != 32 {
		t.Errorf("main: 32 POSIX levels occupy %d queues, want 32", len(got))
	}
	// Behaviour, not just arithmetic: the POSIX priority-30 thread is queued first and the
	// priority-31 thread (more important) second. Legacy runs them FIFO in one queue; main runs
	// the more important one first.
	for _, tc := range []struct {
		f     runq.Fold
		minRT uint8
		first string
	}{{runq.LegacyFold, 16, "posix30"}, {runq.NoFold, 8, "posix31"}} {
		var q runq.Runq[task]
		p30, p31 := newTask("posix30"), newTask("posix31")
		q.Add(tc.f.Index(tc.minRT+31-30), &p30.Link)
		q.Add(tc.f.Index(tc.minRT+31-31), &p31.Link)
		if x, _ := q.Choose(); x.name != tc.first {
			t.Errorf("fold %d: Choose() = %s, want %s", tc.f, x.name, tc.first)
		}
	}
}
