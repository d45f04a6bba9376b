package sim_test

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// fifo is the smallest useful policy: one global first-in, first-out queue and no preemption.
// A woken thread joins the tail and, if a CPU is idle, that CPU is told to pick. It ignores
// affinity, nice values and classes, so it suits workloads that set none of them.
type fifo struct {
	env   sched.Env
	cpus  []topology.CPU
	busy  []bool // by CPU id: running a thread, or told to pick
	queue []sched.ID
}

func (p *fifo) Name() string { return "fifo" }
func (p *fifo) TickHz() int  { return 100 }

func (p *fifo) Start(cfg sched.Config, env sched.Env) error {
	p.env = env
	p.cpus = slices.Collect(cfg.Topology.CPUs().All())
	p.busy = make([]bool, cfg.Topology.NumIDs())
	return nil
}

func (p *fifo) AddGroup(sched.Group) error { return errors.New("fifo: no control groups") }

func (p *fifo) Fork(int64, sched.ID, sched.ID, topology.CPU, sched.Attr) {}

func (p *fifo) Wakeup(now int64, tid sched.ID, from topology.CPU, flags sched.WakeFlags) {
	p.queue = append(p.queue, tid)
	for _, c := range p.cpus {
		if !p.busy[c] {
			p.busy[c] = true
			p.env.Resched(c) // the machine calls Pick on an idle CPU only when asked to
			return
		}
	}
}

func (p *fifo) Pick(now int64, cpu topology.CPU) (sched.ID, bool) {
	if len(p.queue) == 0 {
		p.busy[cpu] = false
		return -1, false
	}
	tid := p.queue[0]
	p.queue = p.queue[1:]
	p.busy[cpu] = true
	return tid, true
}

func (p *fifo) Stop(now int64, cpu topology.CPU, tid sched.ID, why sched.StopReason) {
	if why == sched.Preempt || why == sched.Yield {
		p.queue = append(p.queue, tid) // still runnable: back to the tail
	}
}

func (p *fifo) Tick(int64, topology.CPU) {}

func (p *fifo) SetAttr(int64, sched.ID, sched.Attr) {}

// Queued makes fifo a sim.Queuer, so that Machine.Check can count its threads.
func (p *fifo) Queued() int { return len(p.queue) }

// A policy is a type with the methods of sim.Policy. This one keeps a global FIFO queue; on one
// CPU, b runs while a sleeps, and a waits for b to finish before its second run. Machine.Check
// after every event verifies that the policy neither loses nor duplicates a thread.
func ExamplePolicy() {
	w, err := workload.Parse(`
thread a
	run 2ms
	sleep 1ms
	run 1ms
end
thread b
	run 3ms
end`)
	if err != nil {
		panic(err)
	}
	m, err := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, &fifo{}, w)
	if err != nil {
		panic(err)
	}
	for m.Step() {
		if err := m.Check(); err != nil {
			panic(err)
		}
	}
	for _, t := range m.Result().Threads {
		fmt.Printf("%s ran %v, waited %v, exited at %v\n", t.Name, time.Duration(t.CPUTime),
			time.Duration(t.WaitTime), time.Duration(t.End))
	}
	// Output:
	// a ran 3ms, waited 2ms, exited at 6ms
	// b ran 3ms, waited 2ms, exited at 5ms
}
