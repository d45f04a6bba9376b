package toy_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/toy"
)

// OSTEP's first exercise (chapter 7, "the convoy effect"): three jobs arrive together on one
// CPU, A needing 100 ms and B and C 10 ms each, in that order. FIFO runs the long job first
// and the short ones wait behind it; SJF, told each job's length (its declared slice), runs
// them shortest first and more than halves the average turnaround; round robin, slicing every
// 4 ms without knowing any length, lets the short jobs through after a few slices of each and
// comes close to SJF, at the cost of the long job, which finishes last.
func Example() {
	w, err := workload.Parse(`
thread A slice=100ms
	run 100ms
end
thread B slice=10ms
	run 10ms
end
thread C slice=10ms
	run 10ms
end
`)
	if err != nil {
		panic(err)
	}
	for _, preset := range []string{"fifo", "sjf", "rr"} {
		p, _ := toy.Preset(preset)
		s, _ := toy.New(p)
		r, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000}, s, w, time.Second)
		if err != nil {
			panic(err)
		}
		var sum time.Duration
		fmt.Printf("%-4s", preset)
		for _, th := range r.Threads {
			turnaround := time.Duration(th.End - th.Start)
			sum += turnaround
			fmt.Printf(" %s %-5v", th.Name, turnaround)
		}
		fmt.Printf(" average turnaround %v\n", (sum / time.Duration(len(r.Threads))).Round(100*time.Microsecond))
	}
	// Output:
	// fifo A 100ms B 110ms C 120ms average turnaround 110ms
	// sjf  A 120ms B 10ms  C 20ms  average turnaround 50ms
	// rr   A 120ms B 30ms  C 32ms  average turnaround 60.7ms
}

// ExampleSystem drives the toy without a simulator: two threads on one CPU under round robin.
// The System says which CPU to reschedule; the caller plays the machine.
func ExampleSystem() {
	s, _ := toy.NewSystem(toy.Params{Rule: toy.RR, Quantum: 2}, topology.Uniform(1, 1, 1, 1, 1))
	a, b := s.Fork(0, sched.Attr{}), s.Fork(1, sched.Attr{})
	cpu, kick := s.Wakeup(a)
	fmt.Println("wake t0: reschedule", cpu, kick)
	_, kick = s.Wakeup(b)
	fmt.Println("wake t1: reschedule any CPU", kick)
	t, why := s.Pick(cpu)
	fmt.Println(why, "|", t)
	for tick := 1; tick <= 2; tick++ {
		expired, why := s.Tick(cpu)
		fmt.Println("tick", tick, why, expired)
	}
	s.Stop(cpu, sched.Preempt)
	_, why = s.Pick(cpu)
	fmt.Println(why)
	// Output:
	// wake t0: reschedule cpu0 true
	// wake t1: reschedule any CPU false
	// cpu0 runs t0: the first in line (rr) | t0(running)
	// tick 1 ran 1 of 2 ticks (rr) false
	// tick 2 ran 2 of 2 ticks with threads waiting: quantum over (rr) true
	// cpu0 runs t1: the first in line (rr)
}

// ExampleFamily is the toy as the harnesses see it: one value, listed in bench/presets.
func ExampleFamily() {
	f := toy.Family()
	p, _ := f.New("sjf")
	fmt.Println(f.Name, f.Presets, f.NonPreemptive, p.Name())
	// Output: toy [fifo rr sjf] [fifo sjf] toy-sjf
}
