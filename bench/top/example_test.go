package top_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/top"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// Example reads a ULE run as Kargl read his machine: two hogs and a nice 10 hog on two CPUs,
// top's screen after three simulated seconds.
func Example() {
	w, _ := workload.Parse("thread hog count=2\n\trun forever\nend\nthread nicehog nice=10\n\trun forever\nend\n")
	s, _ := ule.New(ule.DefaultParams())
	m, _ := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1}, s, w)
	tw, _ := top.New(s)
	for at := time.Second; at <= 3*time.Second; at += time.Second {
		m.Run(at)
		sc := tw.Screen(m.Result())
		if at == 3*time.Second {
			fmt.Print(sc.Text("ule:main"))
		}
	}
	// The three share two CPUs (the %CPU column sums to 200); ULE's WCPU is its CPU.

	// Output:
	// at 3s, ule:main
	//   THR          PRI NICE STATE   C    TIME   WCPU    CPU
	//   hog.0        119    0 CPU1    1    0:02 66.65% 66.65%
	//   hog.1        120    0 CPU0    0    0:02 66.65% 66.65%
	//   nicehog      131   10 RUN     0    0:02 66.65% 66.65%
}
