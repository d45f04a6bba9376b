// Command simcompare runs one workload under FreeBSD's ULE and Linux's CFS on the same simulated
// machine and prints each thread's CPU share and wake-to-run latency percentiles side by side.
//
// The workload puts a latency-sensitive periodic thread, a small pipeline and a finite job
// (gzip) beside CPU hogs on four CPUs: the kind of mix in which the schedulers differ most (seeds
// 000 and 004). Each run stops when gzip has exited (or after 20 s), after a 1 s warm-up, so that
// the shares and latencies are over the interval in which gzip competed. The machine charges the
// default profile's costs (sim.DefaultProfile: measured on the machine the project's CI runs on),
// so the latencies are predictions for that machine; -ideal runs it on the ideal machine (no
// costs), where they are the policies' decisions alone.
package main

import (
	"flag"
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

thread gzip
	repeat 2000
		run 2ms
		sleep 500us
	end
end
`

func main() {
	ideal := flag.Bool("ideal", false, "run on the ideal machine (no costs) instead of the default profile's")
	flag.Parse()
	p := sim.DefaultProfile()
	if *ideal {
		p = sim.IdealProfile()
	}
	if err := run(os.Stdout, p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run is the README's example: the same workload under ULE and CFS, side by side, on a machine
// that charges the costs of profile prof.
func run(out io.Writer, prof *sim.Profile) error {
	w, err := workload.Parse(text)
	if err != nil {
		return err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 4, 1), Hz: 1000, StatHz: 127, Seed: 1}
	prof.Apply(&cfg) // the zero Config is the ideal machine: a profile gives it its costs
	u, err := ule.New(ule.DefaultParams())
	if err != nil {
		return err
	}
	cfsPolicy, err := cfs.New(cfs.DefaultParams())
	if err != nil {
		return err
	}
	stop := sim.Stop{Threads: []string{"gzip"}, Time: 20 * time.Second, Warmup: time.Second}
	var results []*sim.Result
	for _, p := range []sim.Policy{u, cfsPolicy} {
		r, err := sim.RunUntil(cfg, p, w, stop)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if err := sim.WriteTableOf(out, sim.Table{Percentiles: []float64{50, 90, 99, 99.9, 100},
		Totals: []sim.Total{sim.Makespan, sim.IdleShare, sim.Switches, sim.Migrations}}, results...); err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "machine profile %s\n", prof)
	return err
}
