package sim_test

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// Idle.IPICurve makes a wake-up IPI to an idle CPU as slow as the CPU's idle time so far says
// (a KVM guest's vCPU halt-polled by its host answers sooner the sooner it is woken): here 10 µs
// after no idle time and 40 µs after 100 µs or more, in a straight line between. The consumer's
// CPU idles for the producer's work less the consumer's own wake-up, L = 10 µs + 0.3 × (work −
// L): 12.3 µs after 20 µs of work, 21.5 µs after 60, the curve's last point after 300.
func ExampleIdle_curve() {
	curve := []sim.IdleIPI{
		{Idle: 0, Cost: sim.Fixed(10 * time.Microsecond)},
		{Idle: 100 * time.Microsecond, Cost: sim.Fixed(40 * time.Microsecond)},
	}
	for _, work := range []string{"20us", "60us", "300us"} {
		w, _ := workload.Parse(`
pipe p
thread producer cpus=0
	repeat 50
		run ` + work + `
		send p
	end
end
thread consumer cpus=1
	repeat 50
		recv p
	end
end`)
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Seed: 1, Idle: sim.Idle{IPICurve: curve}}
		r, _ := sim.Run(cfg, must(ule.New(ule.DefaultParams())), w, time.Second)
		c, _ := r.Thread("consumer")
		p50, _ := c.Wakeup.Percentile(50)
		fmt.Printf("producer works %s: the consumer wakes %v after the message\n", work, time.Duration(p50))
	}
	// Output:
	// producer works 20us: the consumer wakes 12.307µs after the message
	// producer works 60us: the consumer wakes 21.538µs after the message
	// producer works 300us: the consumer wakes 40µs after the message
}

// Costs.TimerExit is the timer interrupt's way from a sleeper's wake-up to the switch to it:
// a sleeper that preempts the CPU's thread at once (here a normal thread beside a SCHED_IDLE
// hog, under EEVDF) runs that much later than Costs.Timer alone would have it.
func ExampleCosts_timerExit() {
	w, _ := workload.Parse(`
thread hog class=idle
	run 1s
end
thread sleeper
	repeat 20
		sleep 1ms
		run 10us
	end
end`)
	for _, exit := range []time.Duration{0, 7 * time.Microsecond} {
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Seed: 1,
			Costs: sim.Costs{Timer: sim.Fixed(5 * time.Microsecond), TimerExit: sim.Fixed(exit)}}
		r, _ := sim.Run(cfg, must(cfs.New(must(cfs.Preset("v6.18")))), w, time.Second)
		s, _ := r.Thread("sleeper")
		p50, _ := s.Wakeup.Percentile(50)
		fmt.Printf("TimerExit %v: the sleeper runs %v after its deadline\n", exit, time.Duration(p50))
	}
	// Output:
	// TimerExit 0s: the sleeper runs 5µs after its deadline
	// TimerExit 7µs: the sleeper runs 12µs after its deadline
}
