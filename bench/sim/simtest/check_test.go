package simtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/simtest"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// fifo is the toy policy of the Example: one global FIFO queue, no preemption, no groups.
type fifo struct {
	env   sched.Env
	cpus  []topology.CPU
	attr  map[sched.ID]sched.Attr
	queue []sched.ID
	// loseEvery, when positive, makes the policy drop every loseEvery-th wake-up: a broken
	// policy for the test of the test.
	loseEvery, wakeups int
}

func (p *fifo) Name() string { return "fifo" }
func (p *fifo) TickHz() int  { return 100 }
func (p *fifo) Queued() int  { return len(p.queue) }

func (p *fifo) Start(cfg sched.Config, env sched.Env) error {
	p.env, p.attr = env, map[sched.ID]sched.Attr{}
	for c := range cfg.Topology.CPUs().All() {
		p.cpus = append(p.cpus, c)
	}
	return nil
}

func (p *fifo) AddGroup(sched.Group) error { return fmt.Errorf("fifo: no control groups") }

func (p *fifo) Fork(_ int64, tid, _ sched.ID, _ topology.CPU, a sched.Attr) { p.attr[tid] = a }

func (p *fifo) Wakeup(_ int64, tid sched.ID, _ topology.CPU, _ sched.WakeFlags) {
	p.wakeups++
	if p.loseEvery > 0 && p.wakeups%p.loseEvery == 0 {
		return
	}
	p.queue = append(p.queue, tid)
	p.kickAll()
}

func (p *fifo) kickAll() {
	for _, c := range p.cpus {
		p.env.Resched(c)
	}
}

func (p *fifo) Pick(_ int64, cpu topology.CPU) (sched.ID, bool) {
	for i, tid := range p.queue {
		if a := p.attr[tid]; a.Allowed(cpu) {
			p.queue = append(p.queue[:i], p.queue[i+1:]...)
			return tid, true
		}
	}
	return 0, false
}

func (p *fifo) Stop(_ int64, _ topology.CPU, tid sched.ID, why sched.StopReason) {
	if why == sched.Preempt || why == sched.Yield {
		p.queue = append(p.queue, tid)
	}
}

// Tick preempts every running thread when others wait, so that hogs share the CPUs.
func (p *fifo) Tick(_ int64, cpu topology.CPU) {
	if len(p.queue) > 0 {
		p.env.Resched(cpu)
	}
}

func (p *fifo) SetAttr(_ int64, tid sched.ID, a sched.Attr) {
	p.attr[tid] = a
	p.kickAll()
}

func TestCheckPolicyPassesACorrectPolicy(t *testing.T) {
	simtest.CheckPolicy(t, func() sim.Policy { return &fifo{} }, simtest.Options{})
}

// recorder is a testing.TB that keeps what it is told.
type recorder struct {
	testing.TB
	errors, logs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func TestCheckPolicyCatchesALosingPolicy(t *testing.T) {
	rec := &recorder{TB: t}
	simtest.CheckPolicy(rec, func() sim.Policy { return &fifo{loseEvery: 7} }, simtest.Options{})
	if len(rec.errors) == 0 {
		t.Fatal("CheckPolicy reported nothing for a policy that loses every 7th wake-up")
	}
	found := false
	for _, e := range rec.errors {
		found = found || strings.Contains(e, "are runnable and not running")
	}
	if !found {
		t.Errorf("CheckPolicy's errors do not name the lost threads: %q", rec.errors)
	}
}

func TestCheckPolicySkipsRefusedScenarios(t *testing.T) {
	rec := &recorder{TB: t}
	simtest.CheckPolicy(rec, func() sim.Policy { return &fifo{} }, simtest.Options{Groups: true})
	skipped := false
	for _, l := range rec.logs {
		skipped = skipped || strings.Contains(l, "groups on 1 CPUs: skipped") && strings.Contains(l, "fifo: no control groups")
	}
	if !skipped || len(rec.errors) != 0 {
		t.Errorf("with groups: logs %q, errors %q", rec.logs, rec.errors)
	}
}

// CheckPolicy is the conformance test every policy calls from its own tests.
func ExampleCheckPolicy() {
	rec := &recorder{}
	simtest.CheckPolicy(rec, func() sim.Policy { return &fifo{} }, simtest.Options{
		Topologies: []*topology.Topology{topology.Uniform(1, 1, 1, 2, 1)},
	})
	fmt.Println(len(rec.errors), "errors")
	// Output: 0 errors
}
