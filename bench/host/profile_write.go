package host

// This file implements the calibration's table of measurements, as schedbench calibrate prints it.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/internal/numfmt"
)

// WriteMeasurements writes m as a table: each probe's quantiles in microseconds, and under the
// timer probes and the ping-pong between CPUs (whose tails the model's draws follow), when they
// were repeated, each repetition's.
func WriteMeasurements(w io.Writer, m Measurements) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "measurement\tmin\tp50\tp90\tp99\tp99.5\tp99.9\tmax\t")
	row := func(name string, c sim.Cost) {
		if c.Max == 0 {
			return
		}
		q := quantiles(c)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", name, us(q[0]), us(q[1]), us(q[2]), us(q[3]), us(q[4]), us(q[5]), us(q[6]))
	}
	row("futex wake, no waiter", m.FutexWake)
	row("futex wake of a remote waiter (waker)", m.WakeRemote)
	row("futex ping-pong, two CPUs (one way)", m.PingRemote)
	if len(m.Reps) > 1 {
		for i := range m.Reps {
			row(fmt.Sprintf("  futex ping-pong, repetition %d", i+1), m.Reps[i].PingRemote)
		}
	}
	row("futex wake of a local waiter (waker)", m.WakeLocal)
	row("futex wake, one CPU (wakee latency)", m.PingLocal)
	row("pipe write+read, 1 byte", m.PipeRW)
	row("perf bench sched pipe (round trip)", m.PerfPipe)
	row("perf bench sched pipe -T (round trip)", m.PerfPipeThreads)
	if m.PerfPipeWakes > 0 || m.PerfPipeThreadsWakes > 0 {
		fmt.Fprintf(tw, "perf bench sched pipe, wake-ups a round trip\t\t%.3f\t\t\t\t\t\t\n", m.PerfPipeWakes)
		fmt.Fprintf(tw, "perf bench sched pipe -T, wake-ups a round trip\t\t%.3f\t\t\t\t\t\t\n", m.PerfPipeThreadsWakes)
	}
	row("timer, idle CPU", m.TimerIdle)
	reps := func(name string, cs []sim.Cost) {
		if len(cs) < 2 {
			return
		}
		for i, c := range cs {
			row(fmt.Sprintf("  %s, repetition %d", name, i+1), c)
		}
	}
	reps("timer, idle CPU", m.TimerIdleReps)
	row("timer, busy CPU", m.TimerBusy)
	reps("timer, busy CPU", m.TimerBusyReps)
	if m.TimerWaking.Max > 0 {
		row("  traced: deadline to expiry", m.TimerExpiry)
		row("  traced: deadline to waking", m.TimerWaking)
		reps("traced: deadline to waking", m.TimerWakingReps)
		row("  traced: waking to switch-in, preempting", m.TimerWakeSwitch)
	} else if m.TimerUntraced != "" {
		fmt.Fprintf(tw, "  untraced: %s\t\t\t\t\t\t\t\t\n", m.TimerUntraced)
	}
	for _, l := range m.IPIByIdle {
		row(fmt.Sprintf("futex ping-pong, replier waiting %v (sent after %v)", l.Wait, l.Sent.Round(10*time.Nanosecond)), l.Late)
		reps(fmt.Sprintf("ping-pong, waiting %v", l.Wait), l.Reps)
	}
	row(fmt.Sprintf("tick (HZ=%d)", m.Hz), m.Tick)
	row("refill, 32 KiB", m.Refill)
	for _, lf := range levelFigures {
		if c, ok := m.Migration[lf.level]; ok {
			row("migration, "+lf.level.String(), c)
		}
	}
	row("pipe write+read, 100 bytes", m.Pipe100)
	row("socket write+read, 100 bytes", m.Socket100)
	row("pipe write+read, 100 bytes, shared with another CPU", m.Pipe100Shared)
	row("socket write+read, 100 bytes, shared with another CPU", m.Socket100Shared)
	row("pipe write, read, 100 bytes, 20 pipes, one CPU to the other", m.Pipe100Fanout)
	row("socket write, read, 100 bytes, 20 sockets, one CPU to the other", m.Socket100Fanout)
	row("copy-on-write fault", m.Fault)
	row("process exit and reap", m.Exit)
	row("copy-on-write fault, other CPU busy", m.FaultBusy)
	row("process exit and reap, other CPU busy", m.ExitBusy)
	row(fmt.Sprintf("switch to another process, a ring of %d on one CPU", switchRingTasks), m.SwitchMMRing)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(m.Skipped) > 0 {
		_, err := fmt.Fprintf(w, "skipped: %s\n", strings.Join(m.Skipped, "; "))
		return err
	}
	return nil
}

// us formats d in microseconds with three significant digits at most.
func us(d time.Duration) string { return numfmt.Sig3(float64(d) / 1e3) }
