// Command onerun is lesson 12 of the course: why one run of a scheduler benchmark proves
// nothing, and how many runs a claim needs (seeds 002 and 000, with package bench/stat).
//
// Run it with
//
//	go run ./examples/onerun
//
// Bruce Evans ran more than 200 makeworlds looking for a lost wake-up, because the idle time of
// one build varied by 327 seconds between runs while the effect he chased was a few seconds
// (seed 002). Mateusz Guzik's patch of seed 000 costs 0.27% on a kernel build, which ministat
// could prove only because he ran each kernel nine times and the runs varied by 0.7 s in 435 s.
//
// A simulation is deterministic: the same seed gives the same run, byte for byte. Its
// variation comes from the seed, which draws every random duration of the workload, as the
// real machine's state (caches, interrupts, the order in which jobs finish) varies from run to
// run. So a simulated difference is real only if it survives many seeds, and bench/stat says
// whether it does, in ministat's words.
//
// The lesson runs a make -j 8-like job tree (a parent forks 64 compile jobs of random length, 8
// at a time, on 4 cores × 2 threads) under 4BSD and ULE for 15 seeds each, prints the first
// seed's result as if it were the answer, then ministat's verdict over all seeds, and the number
// of runs the observed spread would need to show a 0.27% difference.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/stat"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
)

const build = `
template cc
	run exp(30ms)
	sleep exp(2ms)
	run exp(30ms)
end

thread make
	repeat 8
		fork cc 8
		join
	end
end
`

const seeds = 15

func main() { lesson.Main("onerun", run) }

// run prints the lesson to w.
func run(w io.Writer) error {
	wl, err := workload.Parse(build)
	if err != nil {
		return err
	}
	t := topology.Uniform(1, 1, 1, 4, 2)
	var samples []stat.Sample
	for _, name := range []string{"bsd4:main", "ule:legacy"} {
		d := &stat.Dataset{}
		for seed := uint64(1); seed <= seeds; seed++ {
			p, err := presets.New(name)
			if err != nil {
				return err
			}
			r, err := sim.Run(sim.Config{Topology: t, Hz: 1000, StatHz: 127, Seed: seed}, p, wl, 60*time.Second)
			if err != nil {
				return err
			}
			d.Add(float64(r.Makespan) / 1e6) // milliseconds
		}
		samples = append(samples, stat.Sample{Name: name, Data: d})
	}
	a, b := samples[0].Data.Values()[0], samples[1].Data.Values()[0]
	fmt.Fprintf(w, "seed 1 alone: 4BSD %.2f ms, ULE %.2f ms: ULE looks %.1f%% %s.\n\n", a, b, 100*abs(b-a)/a, map[bool]string{true: "slower", false: "faster"}[b > a])
	fmt.Fprintf(w, "%d seeds each (the make time in ms), as ministat prints it:\n", seeds)
	o := stat.DefaultOptions()
	o.Width = 70
	if err := stat.Ministat(w, samples, o); err != nil {
		return err
	}
	s := samples[0].Data.Summary().Stddev
	mean := samples[0].Data.Summary().Mean
	n, err := stat.RunsNeeded(s, 0.0027*mean, 95, 0.8)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nWith runs varying by %.2f ms (%.1f%% of the mean), showing a 0.27%% difference at 95%%\n", s, 100*s/mean)
	fmt.Fprintf(w, "confidence four times out of five takes %d runs of each side.\n", n)
	return nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
