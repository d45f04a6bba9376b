package workload_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

func TestStarted(t *testing.T) {
	ms := workload.Fixed(1_000_000)
	cc := workload.Thread{Name: "cc", Template: true, Ops: []workload.Op{workload.RunOp(ms)}}
	cases := []struct {
		name  string
		w     workload.Workload
		n     int
		exact bool
	}{
		{"one thread", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{workload.RunOp(ms)}}}}, 1, true},
		{"count and template", workload.Workload{Threads: []workload.Thread{cc, {Name: "a", Count: 3, Ops: []workload.Op{workload.RunOp(ms)}}}}, 3, true},
		// seed000-buildkernel's shape: 2 make threads forking 5 jobs one at a time each.
		{"repeat fork join", workload.Workload{Threads: []workload.Thread{cc,
			{Name: "make", Count: 2, Ops: []workload.Op{workload.RepeatOp(5, workload.ForkOp("cc", 1), workload.Op{Kind: workload.Join})}}}}, 2 + 10, true},
		{"fork N nested repeat", workload.Workload{Threads: []workload.Thread{cc,
			{Name: "p", Ops: []workload.Op{workload.RepeatOp(3, workload.RepeatOp(4, workload.ForkOp("cc", 2)))}}}}, 1 + 24, true},
		{"finite every", workload.Workload{Threads: []workload.Thread{cc,
			{Name: "p", Ops: []workload.Op{workload.EveryOp(1_000_000, 7, workload.ForkOp("cc", 0))}}}}, 1 + 7, true},
		{"generations", workload.Workload{Threads: []workload.Thread{cc,
			{Name: "mid", Template: true, Ops: []workload.Op{workload.ForkOp("cc", 3)}},
			{Name: "p", Ops: []workload.Op{workload.ForkOp("mid", 2)}}}}, 1 + 2*(1+3), true},
		{"loop forks", workload.Workload{Threads: []workload.Thread{cc,
			{Name: "server", Ops: []workload.Op{workload.ForkOp("cc", 1), workload.LoopOp(workload.SleepOp(ms), workload.ForkOp("cc", 1))}}}}, 2, false},
		{"forever every forks", workload.Workload{Threads: []workload.Thread{cc,
			{Name: "p", Ops: []workload.Op{workload.EveryOp(1_000_000, 0, workload.ForkOp("cc", 1))}}}}, 1, false},
		{"loop without fork is exact", workload.Workload{Threads: []workload.Thread{
			{Name: "hog", Ops: []workload.Op{workload.LoopOp(workload.RunOp(ms))}}}}, 1, true},
		{"self-forking template", workload.Workload{Threads: []workload.Thread{
			{Name: "bomb", Template: true, Ops: []workload.Op{workload.ForkOp("bomb", 2)}},
			{Name: "p", Ops: []workload.Op{workload.ForkOp("bomb", 1)}}}}, 1 + 1 + 2, false}, // p, the first bomb and its two: the generations after are not counted
		{"beyond MaxInt", workload.Workload{Threads: []workload.Thread{cc,
			{Name: "p", Ops: []workload.Op{workload.RepeatOp(1<<20, workload.RepeatOp(1<<20, workload.RepeatOp(1<<20, workload.RepeatOp(1<<20, workload.ForkOp("cc", 1<<20)))))}}}},
			math.MaxInt, true},
	}
	for _, c := range cases {
		n, exact := c.w.Started()
		if n != c.n || exact != c.exact {
			t.Errorf("%s: Started() = %d, %v; want %d, %v", c.name, n, exact, c.n, c.exact)
		}
	}
}

// naiveStarted counts the threads a run starts by walking every op each time it runs, Repeat
// by Repeat and fork by fork, as a simulation of the scripts without time would.
func naiveStarted(w *workload.Workload) int {
	tmpl := map[string]*workload.Thread{}
	for i := range w.Threads {
		if w.Threads[i].Template {
			tmpl[w.Threads[i].Name] = &w.Threads[i]
		}
	}
	var run func(ops []workload.Op) int
	run = func(ops []workload.Op) int {
		n := 0
		for _, op := range ops {
			switch op.Kind {
			case workload.Fork:
				for range max(op.N, 1) {
					n += 1 + run(tmpl[op.Name].Ops)
				}
			case workload.Repeat, workload.Every:
				for range op.N {
					n += run(op.Body)
				}
			}
		}
		return n
	}
	n := 0
	for i := range w.Threads {
		if !w.Threads[i].Template {
			for range w.Threads[i].Instances() {
				n += 1 + run(w.Threads[i].Ops)
			}
		}
	}
	return n
}

// randomScript returns a script of Run, Fork, Repeat and finite Every ops forking templates
// t0..t(level-1) only, so that no template forks itself.
func randomScript(r *rand.Rand, level, depth int) []workload.Op {
	var ops []workload.Op
	for range r.IntN(4) {
		switch k := r.IntN(4); {
		case k == 0 && level > 0:
			ops = append(ops, workload.ForkOp(fmt.Sprintf("t%d", r.IntN(level)), r.IntN(3)))
		case k == 1 && depth < 3:
			ops = append(ops, workload.RepeatOp(1+r.IntN(3), randomScript(r, level, depth+1)...))
		case k == 2 && depth < 3:
			ops = append(ops, workload.EveryOp(1_000_000, 1+r.IntN(3), randomScript(r, level, depth+1)...))
		default:
			ops = append(ops, workload.RunOp(workload.Fixed(1000)))
		}
	}
	return ops
}

func TestStartedMatchesNaiveWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var w workload.Workload
		nt := r.IntN(4)
		for k := range nt {
			w.Threads = append(w.Threads, workload.Thread{Name: fmt.Sprintf("t%d", k), Template: true, Ops: randomScript(r, k, 0)})
		}
		for k := range 1 + r.IntN(3) {
			w.Threads = append(w.Threads, workload.Thread{Name: fmt.Sprintf("p%d", k), Count: r.IntN(3), Ops: randomScript(r, nt, 0)})
		}
		n, exact := w.Started()
		if want := naiveStarted(&w); n != want || !exact {
			t.Fatalf("workload %d: Started() = %d, %v; the walk counts %d\n%+v", i, n, exact, want, w)
		}
	}
}

func ExampleWorkload_Started() {
	w := workload.Workload{Threads: []workload.Thread{
		{Name: "cc", Template: true, Ops: []workload.Op{workload.RunOp(workload.Fixed(30_000_000))}},
		// make -j2 building 100 objects: each slot forks a compiler and waits for it, 50 times.
		{Name: "make", Count: 2, Ops: []workload.Op{workload.RepeatOp(50, workload.ForkOp("cc", 1), workload.Op{Kind: workload.Join})}},
	}}
	n, exact := w.Started()
	fmt.Println(n, exact)
	// Output: 102 true
}
