package sim_test

import (
	"fmt"
	"os"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/topology"
)

// A wake-up across CPUs, step by step: the producer's try_to_wake_up (2us), the IPI (4us),
// the idle consumer CPU's exit from its idle state (drawn around 20us), and nothing for the
// switch, since the consumer resumes on the CPU where only it runs. The latency is their sum.
func ExampleCosts() {
	w, _ := workload.Parse(`
pipe p
thread producer cpus=0
	repeat 1000
		run 300us
		send p
	end
end
thread consumer cpus=1
	repeat 1000
		recv p
		run 100us
	end
end`)
	cfg := sim.Config{
		Topology: topology.Uniform(1, 1, 1, 2, 1),
		Costs: sim.Costs{
			Wakeup: sim.Fixed(2 * time.Microsecond),
			IPI:    sim.Fixed(4 * time.Microsecond),
			Switch: sim.Fixed(3 * time.Microsecond),
		},
		Idle: sim.Idle{ExitLatency: sim.Cost{Min: 15 * time.Microsecond, P50: 20 * time.Microsecond,
			P90: 30 * time.Microsecond, P99: 60 * time.Microsecond, Max: 200 * time.Microsecond}},
	}
	r, _ := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, 10*time.Second)
	c, _ := r.Thread("consumer")
	for _, p := range []float64{0, 50, 99} {
		v, _ := c.Latency(p)
		fmt.Printf("p%v %v\n", p, time.Duration(v))
	}
	// Output:
	// p0 21.002µs
	// p50 25.866µs
	// p99 64.29µs
}

// A profile is the costs of one machine as data: the ideal one charges nothing.
func ExampleProfile() {
	p := sim.IdealProfile()
	var cfg sim.Config
	p.Apply(&cfg)
	fmt.Println(p, cfg.Costs.IsZero())
	fmt.Println(sim.ProfileFigures())
	// Output:
	// ideal (no costs) true
	// [wakeup ipi ipi_send idle_exit idle_poll timer timer_exit switch switch_mm refill migration_smt migration_llc migration_node migration_remote tick]
}

// A workload whose costs are a real program's measured CPU time charges only the profile's
// latencies: that CPU time holds the wake-ups, switches and ticks already.
func ExampleProfile_Latencies() {
	ci := sim.DefaultProfile()
	p := ci.Latencies()
	all, allExit := ci.Costs()
	c, exit := p.Costs()
	fmt.Println(p.Name, p.LatenciesOnly())
	fmt.Println("kept:", c.IPI == all.IPI, c.Timer == all.Timer, exit == allExit)
	fmt.Println("left out:", c.Wakeup.IsZero(), c.IPISend.IsZero(), c.Switch.IsZero(), c.Refill.IsZero(), c.Tick.IsZero())
	for _, name := range sim.ProfileFigures() {
		if k, _ := sim.ProfileFigureKind(name); k == sim.LatencyFigure {
			fmt.Print(name, " ")
		}
	}
	fmt.Println()
	// Output:
	// ci (latencies only) true
	// kept: true true true
	// left out: true true true true true
	// ipi idle_exit idle_poll timer timer_exit
}

// A profile file names each figure with its unit, method and date; a figure that is missing,
// negative or absurd is an error naming the file and the field.
func ExampleParseProfile() {
	_, err := sim.ParseProfile("host.json", []byte(`{"schema": "schedkit.profile/1", "name": "host", "figures": {}}`))
	fmt.Println(err)
	b, _ := os.ReadFile("profiles/ideal.json")
	p, err := sim.ParseProfile("ideal.json", b)
	fmt.Println(p.Figures["switch"].Method, err)
	// Output:
	// sim: profile host.json: figures.wakeup: missing (the waker's try_to_wake_up (Costs.Wakeup))
	// none: the ideal machine charges nothing <nil>
}
