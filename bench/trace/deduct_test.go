package trace

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// pingPongTrace returns ftrace text of two processes taking turns on CPU 0 through a pipe,
// rounds times: ping runs 200 µs and wakes pong, pong runs 150 µs and wakes ping; then ping
// runs 200 µs more and blocks.
func pingPongTrace(rounds int) string {
	var b strings.Builder
	b.WriteString("cpus=1\n")
	line := func(comm string, pid int, t time.Duration, ev string) {
		fmt.Fprintf(&b, "%16s-%-5d [000]  %d.%09d: %s\n", comm, pid, t/time.Second, t%time.Second, ev)
	}
	line("<idle>", 0, 0, "sched_wakeup_new: comm=ping pid=1000 prio=120 target_cpu=000")
	line("<idle>", 0, 0, "sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ping next_pid=1000 next_prio=120")
	line("ping", 1000, 10*time.Microsecond, "sched_wakeup_new: comm=pong pid=1001 prio=120 target_cpu=000")
	t := 200 * time.Microsecond
	for range rounds {
		line("ping", 1000, t, "sched_wakeup: comm=pong pid=1001 prio=120 target_cpu=000")
		line("ping", 1000, t, "sched_switch: prev_comm=ping prev_pid=1000 prev_prio=120 prev_state=S ==> next_comm=pong next_pid=1001 next_prio=120")
		t += 150 * time.Microsecond
		line("pong", 1001, t, "sched_wakeup: comm=ping pid=1000 prio=120 target_cpu=000")
		line("pong", 1001, t, "sched_switch: prev_comm=pong prev_pid=1001 prev_prio=120 prev_state=S ==> next_comm=ping next_pid=1000 next_prio=120")
		t += 200 * time.Microsecond
	}
	line("ping", 1000, t, "sched_switch: prev_comm=ping prev_pid=1000 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120")
	return b.String()
}

// TestDeductedReplayKeepsCPUTime replays a one-CPU ping-pong on a one-CPU machine whose fixed
// costs charge every step the trace shows (the switch and address-space switch into each run,
// the refill after the other ran, the waker's try_to_wake_up): the replay makes the recording's
// switches, so with the costs deducted at import each task gets the trace's CPU time to the
// nanosecond; without, the costs count twice.
func TestDeductedReplayKeepsCPUTime(t *testing.T) {
	costs := sim.Costs{Switch: sim.Fixed(1000), SwitchMM: sim.Fixed(3000), Refill: sim.Fixed(500), Wakeup: sim.Fixed(700)}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Costs: costs}
	text := pingPongTrace(50)
	for _, deduct := range []bool{true, false} {
		o := &ImportOptions{}
		if deduct {
			o.Costs = &costs
		}
		im, err := ReadFtrace(strings.NewReader(text), "pingpong", o)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Replay(cfg, policy("cfs:v7.1"), im, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range c.Tasks {
			switch {
			case deduct && tc.CPUTime != tc.Trace.CPUTime:
				t.Errorf("deducted: %s: replay CPU %d ns, trace %d ns", tc.Trace.Label(), tc.CPUTime, tc.Trace.CPUTime)
			case !deduct && tc.CPUTime <= tc.Trace.CPUTime:
				t.Errorf("not deducted: %s: replay CPU %d ns, want more than the trace's %d ns (the costs counted twice)", tc.Trace.Label(), tc.CPUTime, tc.Trace.CPUTime)
			}
		}
	}
}

// TestDeductionShorten checks the arithmetic of a burst's deduction: the costs owed, the clock
// interrupts in the burst (Tick per period of running), and what is carried to the next burst.
func TestDeductionShorten(t *testing.T) {
	d := &deductions{tick: 20_000, period: 4_000_000} // 20 µs a tick at HZ=250
	cases := []struct{ run, owed, left, still int64 }{
		{10_000, 0, 10_000 - 50, 0},               // 10 µs: 10/4000 of a tick, 50 ns
		{8_000_000, 3_000, 8_000_000 - 43_000, 0}, // two periods: 40 µs, and 3 µs owed
		{2_000, 5_000, 0, 3_010},                  // the costs exceed the burst: 3 µs and the tick's 10 ns carried
		{0, 0, 0, 0},
	}
	for _, c := range cases {
		left, still := d.shorten(c.run, c.owed)
		if left != c.left || still != c.still {
			t.Errorf("shorten(%d, %d) = %d, %d; want %d, %d", c.run, c.owed, left, still, c.left, c.still)
		}
	}
}
