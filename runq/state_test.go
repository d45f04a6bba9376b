package runq_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strconv"
	"testing"

	"github.com/schedkit/schedkit/runq"
)

var updateState = flag.Bool("update", false, "rewrite testdata/state.golden with the current snapshot")

// TestSnapshotGolden pins the JSON form of a snapshot and a traced search: the page and
// `schedbench explain -state` read exactly these fields.
func TestSnapshotGolden(t *testing.T) {
	var q runq.Runq[Thread]
	for _, x := range []struct {
		name string
		pri  uint8
		cpu  int
	}{{"irq", 4, 0}, {"a", 60, 0}, {"b", 60, 0}, {"c", 70, 0}, {"d", 70, 1}, {"idle", 255, 1}} {
		th := NewThread(x.name, x.pri)
		th.CPU = x.cpu
		q.Add(runq.Index(x.pri), &th.Link)
	}
	var s runq.Search
	r := runq.Range{Lo: 56, Hi: 223}
	pred := runq.Trace(r, func(_ runq.Index, qq *runq.Queue[Thread]) bool {
		_, ok := qq.FirstMatch(func(t *Thread) bool { return t.CPU == 1 })
		return ok
	}, &s)
	s.Finish(q.Find(r, pred))
	got, err := json.MarshalIndent(struct {
		State  runq.State  `json:"state"`
		Search runq.Search `json:"search"`
	}{q.Snapshot(func(t *Thread) string { return t.Name }), s}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const path = "testdata/state.golden"
	if *updateState {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("snapshot differs from %s; run with -update and review the diff.\ngot:\n%s", path, got)
	}
}

// TestSnapshotModel checks Snapshot against the naive model on random operation sequences: the
// words decode to exactly the non-empty queues, and every queue lists its elements in order.
func TestSnapshotModel(t *testing.T) {
	var q runq.Runq[Thread]
	var model [runq.NumQueues][]string
	var live []*Thread
	seed := uint64(1)
	next := func(n int) int { // xorshift: deterministic, no global randomness
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	for step := range 2000 {
		if len(live) > 0 && next(3) == 0 {
			k := next(len(live))
			th := live[k]
			live = append(live[:k], live[k+1:]...)
			q.Remove(&th.Link)
			m := model[th.Pri]
			for j, n := range m {
				if n == th.Name {
					model[th.Pri] = append(m[:j:j], m[j+1:]...)
					break
				}
			}
		} else {
			th := NewThread("t"+strconv.Itoa(step), uint8(next(runq.NumQueues)))
			q.Add(runq.Index(th.Pri), &th.Link)
			model[th.Pri] = append(model[th.Pri], th.Name)
			live = append(live, th)
		}
		s := q.Snapshot(func(t *Thread) string { return t.Name })
		if s.Len != len(live) {
			t.Fatalf("step %d: Len %d, want %d", step, s.Len, len(live))
		}
		k := 0
		for i := range runq.NumQueues {
			w, err := strconv.ParseUint(s.Words[i/64], 16, 64)
			if err != nil || len(s.Words[i/64]) != 16 {
				t.Fatalf("step %d: word %q: %v", step, s.Words[i/64], err)
			}
			set := w&(1<<(i%64)) != 0
			if set != (len(model[i]) > 0) {
				t.Fatalf("step %d: bit %d is %v, queue holds %d", step, i, set, len(model[i]))
			}
			if !set {
				continue
			}
			if k >= len(s.Queues) || int(s.Queues[k].Index) != i {
				t.Fatalf("step %d: queue %d missing from %v", step, i, s.Queues)
			}
			if !slicesEqual(s.Queues[k].Elems, model[i]) {
				t.Fatalf("step %d: queue %d is %v, want %v", step, i, s.Queues[k].Elems, model[i])
			}
			k++
		}
		if k != len(s.Queues) {
			t.Fatalf("step %d: %d queues listed, %d non-empty", step, len(s.Queues), k)
		}
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTraceLeavesFindUnchanged checks that a traced search returns what the untraced one does
// and that its visits are exactly the queues Find offered, in order.
func TestTraceLeavesFindUnchanged(t *testing.T) {
	var q runq.Runq[Thread]
	for i := range 40 {
		th := NewThread("t"+strconv.Itoa(i), uint8(i*37%256))
		th.CPU = i % 3
		q.Add(runq.Index(th.Pri), &th.Link)
	}
	for lo := 0; lo < runq.NumQueues; lo += 17 {
		for hi := lo; hi < runq.NumQueues; hi += 23 {
			r := runq.Range{Lo: runq.Index(lo), Hi: runq.Index(hi)}
			var offered []runq.Index
			pred := func(i runq.Index, qq *runq.Queue[Thread]) bool {
				return qq.Front().CPU == 2
			}
			wi, wok := q.Find(r, func(i runq.Index, qq *runq.Queue[Thread]) bool {
				offered = append(offered, i)
				return pred(i, qq)
			})
			var s runq.Search
			s.Finish(q.Find(r, runq.Trace(r, pred, &s)))
			if s.Found != wi || s.OK != wok || s.Range != r {
				t.Fatalf("%v: traced %d %v, untraced %d %v", r, s.Found, s.OK, wi, wok)
			}
			if len(s.Visits) != len(offered) {
				t.Fatalf("%v: %d visits, %d offered", r, len(s.Visits), len(offered))
			}
			for k, v := range s.Visits {
				if v.Index != offered[k] || v.Stop != (wok && k == len(offered)-1) {
					t.Fatalf("%v: visit %d is %+v", r, k, v)
				}
			}
		}
	}
}
