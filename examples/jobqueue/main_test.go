package main

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/golden"
)

// TestGolden keeps the lesson honest: its output must match the reviewed golden file byte for
// byte. Run go test ./examples/jobqueue -update after an intended change and review the diff.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	run(&buf)
	golden.Check(t, "testdata/jobqueue.golden", buf.Bytes())
}

// model is the naive reference: one slice per priority, scanned from 0.
type model [256][]*Job

func (m *model) take() (*Job, bool) {
	for p := range m {
		if len(m[p]) > 0 {
			j := m[p][0]
			m[p] = m[p][1:]
			return j, true
		}
	}
	return nil, false
}

func (m *model) cancel(j *Job) bool {
	l := m[j.Pri]
	for i, x := range l {
		if x == j {
			m[j.Pri] = append(l[:i:i], l[i+1:]...)
			return true
		}
	}
	return false
}

func (m *model) len() int {
	n := 0
	for _, l := range m {
		n += len(l)
	}
	return n
}

// TestModel drives the queue and the model with the same random operations (submit at a random
// priority from a few levels so that ties are common, cancel a random job ever submitted, take)
// and compares every answer.
func TestModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		q, m := NewQueue(), &model{}
		var all []*Job
		for step := range 3000 {
			switch op := rng.IntN(10); {
			case op < 5:
				j := NewJob("", uint8(rng.IntN(6)*50), nil)
				all = append(all, j)
				q.Submit(j)
				m[j.Pri] = append(m[j.Pri], j)
			case op < 7 && len(all) > 0:
				j := all[rng.IntN(len(all))]
				if got, want := q.Cancel(j), m.cancel(j); got != want {
					t.Fatalf("seed %d step %d: Cancel = %t, want %t", seed, step, got, want)
				}
			default:
				got, gok := q.TryTake()
				want, wok := m.take()
				if got != want || gok != wok {
					t.Fatalf("seed %d step %d: TryTake = %p, %t; want %p, %t", seed, step, got, gok, want, wok)
				}
			}
			if q.Len() != m.len() {
				t.Fatalf("seed %d step %d: Len = %d, want %d", seed, step, q.Len(), m.len())
			}
		}
	}
}

// TestConcurrent runs many producers, consumers and cancellers at once (run it with -race):
// every job is either taken exactly once or cancelled, never both; and, because each producer
// submits in order and Take records its position in the queue's order of takes under the lock,
// jobs of one producer and one priority are taken in the order they were submitted.
func TestConcurrent(t *testing.T) {
	const producers, consumers, per = 6, 6, 1500
	q := NewQueue()
	jobs := make([][]*Job, producers)
	for p := range jobs {
		jobs[p] = make([]*Job, per)
		for i := range jobs[p] {
			jobs[p][i] = NewJob("", uint8((p*7+i*13)%4*60), nil)
		}
	}
	var taken, cancelled sync.Map
	var wg sync.WaitGroup
	for range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := q.Take()
				if !ok {
					return
				}
				if _, dup := taken.LoadOrStore(j, true); dup {
					t.Errorf("job %p taken twice", j)
				}
			}
		}()
	}
	var pw sync.WaitGroup
	for p := range producers {
		pw.Add(2)
		go func() {
			defer pw.Done()
			for _, j := range jobs[p] {
				q.Submit(j)
			}
		}()
		go func() { // a canceller racing the consumers for this producer's every third job
			defer pw.Done()
			for i := 0; i < per; i += 3 {
				if q.Cancel(jobs[p][i]) {
					cancelled.Store(jobs[p][i], true)
				}
			}
		}()
	}
	pw.Wait()
	q.Close()
	wg.Wait()
	for p := range jobs {
		last := map[uint8]uint64{}
		for i, j := range jobs[p] {
			_, tk := taken.Load(j)
			_, cn := cancelled.Load(j)
			if tk == cn {
				t.Fatalf("producer %d job %d: taken %t, cancelled %t; want exactly one", p, i, tk, cn)
			}
			if tk {
				if j.taken <= last[j.Pri] {
					t.Fatalf("producer %d job %d (pri %d) taken at %d, after a later-submitted job taken at %d", p, i, j.Pri, j.taken, last[j.Pri])
				}
				last[j.Pri] = j.taken
			}
		}
	}
}

// TestMisuse lists the programmer errors the queue reports.
func TestMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"submit twice", func() { q := NewQueue(); j := NewJob("", 1, nil); q.Submit(j); q.Submit(j) }},
		{"submit to two queues", func() { j := NewJob("", 1, nil); NewQueue().Submit(j); NewQueue().Submit(j) }},
		{"cancel on the wrong queue", func() { j := NewJob("", 1, nil); NewQueue().Submit(j); NewQueue().Cancel(j) }},
		{"submit after close", func() { q := NewQueue(); q.Close(); q.Submit(NewJob("", 1, nil)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tc.name)
				}
			}()
			tc.f()
		})
	}
}
