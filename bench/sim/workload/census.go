package workload

import "math"

// Started returns how many threads a run of w can start in all: its declarations' instances and
// every thread its scripts fork, each Fork counted as often as the Repeat and finite Every
// around it run it, a template's own forks counted for every thread forked from it. It is the
// figure a caller checks a memory budget against before a run (the simulator keeps each
// thread's statistics until the run ends, so a run of short-lived forked threads holds all of
// them).
//
// Some forks cannot be counted from the script alone: one inside a Loop, an Until or a forever Every
// (their number depends on how long the run lasts), or one of a template that forks itself,
// directly or through others. Started leaves those out and reports exact false; the count is
// then a lower bound of those forks. Every script is counted as if it ran to its end (an Exit
// or the run's end may come first), so an exact count is the most a run can start. A count past [math.MaxInt] is returned as math.MaxInt.
func (w *Workload) Started() (n int, exact bool) {
	c := census{w: w, memo: map[string]float64{}, busy: map[string]bool{}, exact: true}
	total := 0.0
	for i := range w.Threads {
		t := &w.Threads[i]
		if t.Template {
			continue
		}
		total += float64(t.Instances()) * (1 + c.forks(t.Ops))
	}
	if total >= math.MaxInt {
		return math.MaxInt, c.exact
	}
	return int(total), c.exact
}

// census counts the threads the scripts of w fork, memoizing each template's count.
type census struct {
	w     *Workload
	memo  map[string]float64 // template name → threads one thread of it starts after itself
	busy  map[string]bool    // templates whose count is being computed (a cycle)
	exact bool
}

// forks returns the threads that running ops once forks, and all that they fork in turn.
func (c *census) forks(ops []Op) float64 {
	n := 0.0
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case Fork:
			k := float64(max(op.N, 1))
			n += k * (1 + c.template(op.Name))
		case Repeat:
			n += float64(op.N) * c.forks(op.Body)
		case Every, Loop, Until:
			body := c.forks(op.Body)
			switch {
			case op.Kind == Every && op.N > 0:
				n += float64(op.N) * body
			case body > 0:
				c.exact = false // as many as the run's length lets happen
			}
		}
	}
	return n
}

// template returns the threads one thread of template name forks, all generations included.
func (c *census) template(name string) float64 {
	if n, ok := c.memo[name]; ok {
		return n
	}
	if c.busy[name] {
		c.exact = false
		return 0
	}
	var t *Thread
	for i := range c.w.Threads {
		if c.w.Threads[i].Template && c.w.Threads[i].Name == name {
			t = &c.w.Threads[i]
			break
		}
	}
	if t == nil {
		return 0 // Validate reports it
	}
	c.busy[name] = true
	n := c.forks(t.Ops)
	delete(c.busy, name)
	c.memo[name] = n
	return n
}
