package ule_test

import (
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// explainWorkload has a bit of everything the Scheduler decides over: pipes (wake-ups on other
// CPUs), forks and joins, a real-time ticker, nice and affinity changes, yields, and more
// threads than CPUs, so that CPUs idle, steal and balance.
const explainWorkload = `
pipe req cap=4
pipe resp
template job
	run exp(2ms)
	sleep uniform(100us,900us)
	run uniform(1ms,3ms)
end
thread client count=6
	loop
		run exp(200us)
		send req
		recv resp
	end
end
thread server count=3 nice=-5
	loop
		recv req
		run uniform(50us,400us)
		send resp
	end
end
thread make cpus=0-3
	repeat 6
		fork job 8
		join
		yield
	end
end
thread ticker class=fifo rtprio=freebsd:10
	every 7ms
		run 300us
	end
end
thread hog count=4 nice=10
	run 20ms
	nice 19
	cpus 1-3
	loop
		run 5ms
		sleep 1ms
	end
end
thread idler class=idle
	loop
		run 3ms
		sleep 2ms
	end
end`

// TestExplainingKeepsTheTrace runs every preset with its explanations recorded (what
// schedbench explain does: sim.Config.Explain, Env.Explaining true) and without (schedbench
// run), on a small machine, where the kernel-shaped searches run, and on a large one, where
// they take the load index: the traces are the same record for record once the Explain records
// are left out. Explaining only formats the reasons the decisions return in any case; it never
// changes which code decides.
func TestExplainingKeepsTheTrace(t *testing.T) {
	w, err := workload.Parse(explainWorkload)
	if err != nil {
		t.Fatal(err)
	}
	tops := []*topology.Topology{topology.Uniform(1, 1, 1, 4, 1), topology.Uniform(2, 1, 2, 4, 2)}
	for _, name := range ule.Presets() {
		p, err := ule.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, top := range tops {
			run := func(explain bool) *sim.Result {
				t.Helper()
				s, err := ule.New(p)
				if err != nil {
					t.Fatal(err)
				}
				cfg := sim.Config{Topology: top, Hz: 1000, StatHz: 127, Seed: 3, Trace: sim.TraceFull, Explain: explain}
				r, err := sim.Run(cfg, s, w, 400*time.Millisecond)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			plain, explained := run(false), run(true)
			var kept []sim.Record
			for _, rec := range explained.Trace.Records {
				if rec.Kind != sim.KindExplain {
					kept = append(kept, rec)
				}
			}
			if len(kept) == len(explained.Trace.Records) {
				t.Fatalf("%s on %v: no explanation recorded", name, top)
			}
			if len(kept) != len(plain.Trace.Records) {
				t.Fatalf("%s on %v: %d records explained, %d plain", name, top, len(kept), len(plain.Trace.Records))
			}
			for i := range kept {
				if kept[i] != plain.Trace.Records[i] {
					t.Fatalf("%s on %v: record %d is %+v explained, %+v plain", name, top, i, kept[i], plain.Trace.Records[i])
				}
			}
		}
	}
}
