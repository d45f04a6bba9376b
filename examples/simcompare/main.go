// Command simcompare runs one workload under FreeBSD's ULE and Linux's CFS on the same simulated
// machine and prints each thread's CPU share and wake-to-run latency percentiles side by side.
//
// The workload puts a latency-sensitive periodic thread and a small pipeline beside CPU hogs on
// four CPUs: the kind of mix in which the schedulers differ most (seeds 000 and 004).
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

const text = `
pipe work cap=4

thread hog count=4 nice=10
	run forever
end

thread ticker
	every 10ms
		run 500us
	end
end

thread producer
	loop
		run exp(2ms)
		send work
	end
end

thread consumer
	loop
		recv work
		run uniform(1ms,3ms)
	end
end
`

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run is the README's example: the same workload under ULE and CFS, side by side.
func run(out io.Writer) error {
	w, err := workload.Parse(text)
	if err != nil {
		return err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 4, 1), Hz: 1000, StatHz: 127, Seed: 1}
	u, err := ule.New(ule.DefaultParams())
	if err != nil {
		return err
	}
	cfsPolicy, err := cfs.New(cfs.DefaultParams())
	if err != nil {
		return err
	}
	var results []*sim.Result
	for _, p := range []sim.Policy{u, cfsPolicy} {
		r, err := sim.Run(cfg, p, w, 10*time.Second)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	return sim.WriteTable(out, results...)
}
