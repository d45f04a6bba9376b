package host

// This file implements the model-vs-host table's rows on time: perf bench sched pipe,
// hackbench and cyclictest run as the real programs on the host, each beside a workload that
// models what the program does, whose costs the machine profile supplies.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// A Goal is the band within which the nearest model's figure must lie, relative to the host's
// median, for a row to meet the goal it stands for: the latency rows' p50 within ±25 % and
// p99 within a factor 2, the benchmarks' times within ±15 %, the throughput rows within ±10 %.
type Goal struct {
	Lo, Hi float64
	// Name says what the band is, as the table prints it ("±25%", "×/÷2").
	Name string
}

// The goals of the table's rows.
var (
	GoalP50        = Goal{Lo: 0.75, Hi: 1.25, Name: "±25%"}
	GoalP99        = Goal{Lo: 0.5, Hi: 2, Name: "×/÷2"}
	GoalTime       = Goal{Lo: 0.85, Hi: 1.15, Name: "±15%"}
	GoalThroughput = Goal{Lo: 0.9, Hi: 1.1, Name: "±10%"}
)

// Meets reports whether ratio (the model's figure over the host's median) lies within g.
func (g Goal) Meets(ratio float64) bool { return ratio >= g.Lo && ratio <= g.Hi }

// goalFor returns the goal of a latency percentile p.
func goalFor(p float64) Goal {
	if p <= 50 {
		return GoalP50
	}
	return GoalP99
}

// programCost returns the median of the profile's program figure name, or def if it has none.
func programCost(p *sim.Profile, name string, def time.Duration) time.Duration {
	if p != nil {
		if f, ok := p.Program[name]; ok && f.Cost.P50 > 0 {
			return f.Cost.P50
		}
	}
	return def
}

// defaultPipeRW is a one-byte pipe write and read where a profile has no "pipe" figure: the CI
// machine's, measured by schedbench calibrate.
const defaultPipeRW = 2500 * time.Nanosecond

// PerfPipeLoops is the number of round trips of the perf bench sched pipe rows.
const PerfPipeLoops = 20000

// perfPipeText returns perf bench sched pipe (tools/perf/bench/sched-pipe.c) as a workload:
// two tasks, each loop a write of one int into the other's pipe and a read of one from its own,
// loops times; processes, or threads of one process with threads. Each write and read costs
// half the profile's "pipe" figure of CPU (the system calls themselves; the wake-ups and
// switches are the machine's). cpu >= 0 pins both tasks to it.
func perfPipeText(p *sim.Profile, loops int, threads bool, cpu int) string {
	half := programCost(p, "pipe", defaultPipeRW) / 2
	attrs := ""
	if cpu >= 0 {
		attrs += fmt.Sprintf(" cpus=%d", cpu)
	}
	procA, procB := "", ""
	if threads {
		procA, procB = " process=perf", " process=perf"
	}
	return Box + fmt.Sprintf(`pipe ab cap=1
pipe ba cap=1
thread sender group=box%s%s
	repeat %d
		run %dns
		send ab
		run %dns
		recv ba
	end
end
thread receiver group=box%s%s
	repeat %d
		run %dns
		recv ab
		run %dns
		send ba
	end
end
`, attrs, procA, loops, half.Nanoseconds(), half.Nanoseconds(), attrs, procB, loops, half.Nanoseconds(), half.Nanoseconds())
}

// PerfPipeExperiment returns perf bench sched pipe's round trip in microseconds (usecs/op): on
// the host the real program (taskset to cpu if cpu >= 0, -T for threads), in the model
// perfPipeText's workload with the profile's pipe figure.
func PerfPipeExperiment(p *sim.Profile, threads bool, cpu int) Experiment {
	loops := PerfPipeLoops
	name := "perf bench sched pipe"
	args := []string{"perf", "bench", "sched", "pipe", "-l", fmt.Sprint(loops)}
	if threads {
		name += " -T"
		args = append(args, "-T")
	}
	if cpu >= 0 {
		name += ", one CPU"
		args = append([]string{"taskset", "-c", fmt.Sprint(cpu)}, args...)
	} else {
		name += ", free"
	}
	w := mustParse(perfPipeText(p, loops, threads, cpu))
	return Experiment{Name: name, Workload: w, Goal: GoalTime,
		Metric: Metric{Name: "round trip (us)", Of: func(s *sim.Result) float64 {
			t, ok := s.Thread("sender")
			if !ok {
				return math.NaN()
			}
			d, ok := t.Completion()
			if !ok {
				return math.NaN()
			}
			return float64(d) / 1e3 / float64(loops)
		}},
		Limit:      time.Duration(loops) * time.Millisecond,
		HostFigure: peerFigure(args, ParsePerfBench, func(b Bench) float64 { return float64(b.PerOp) / 1e3 })}
}

// Hackbench's shape (rt-tests' hackbench.c): each group has num_fds (20) senders and as many
// receivers; each sender writes loops messages of 100 bytes to each receiver of its group, and
// each receiver reads num_fds × loops.
const (
	hackbenchFDs   = 20
	HackbenchLoops = 50
)

// The capacity of a pipe and of an AF_UNIX stream socket in hackbench's 100-byte messages on
// Linux 6.18 with the default buffer sizes, measured by filling one with non-blocking writes
// (bench/scenario's seed004 calibration): the model's pipes hold as many. And the room a
// reader must make in a full one before a blocked writer wakes (workload.Pipe.Room), measured
// by reading the full one a message at a time until poll reports it writable: a pipe's writer
// wakes once a page buffer is empty (pipe_read, fs/pipe.c: 4096 bytes hold 40 messages);
// a socket's writers once sk_wmem_alloc is down to a quarter of sk_sndbuf (unix_writable,
// net/unix/af_unix.c: 69 of 278 left), all of them at once. TestHackbenchBuffers measures
// all four on the machine the tests run on.
const (
	hackbenchPipeCap    = 640
	hackbenchSocketCap  = 278
	hackbenchPipeRoom   = 40
	hackbenchSocketRoom = 209
)

// What a child of hackbench's process mode pays inside the timed region beyond its messages,
// counted with perf record -e page-faults -c 1 (and the system calls) on rt-tests 2.4's
// hackbench -g 1 -l 50 -P -p with glibc 2.36: between the parent's write that starts the
// children and each child's exit_group, 15 write faults on pages it shares copy-on-write with
// its parent, 14 of them in glibc's exit() (__run_exit_handlers, _IO_cleanup, _dl_fini,
// __do_global_dtors_aux), then the kernel's exit and its reap. With -T the tasks are threads of
// one process, which take none of these. hackbench keeps every CPU busy (40 tasks a group), so
// the model charges the figures measured beside a CPU busy with another process (fault_busy,
// exit_busy) where the profile has them.
const (
	hackbenchStartFaults = 1
	hackbenchExitFaults  = 14
)

// hackbenchText returns hackbench -g groups -l loops as a workload: a pipe per receiver (with
// the capacity and room of a pipe or a socket), the senders writing to each receiver of their
// group in turn; processes (each task a process of
// its own, as hackbench forks them) or threads (-T: one process). Each message costs the
// sender half and the receiver half of the profile's pipe100_shared or socket100_shared figure
// (else pipe100 or socket100: a profile measured on one CPU has no shared figure); a process
// starts with hackbenchStartFaults of the profile's copy-on-write fault and ends with
// hackbenchExitFaults of them and its exit.
func hackbenchText(p *sim.Profile, groups, loops int, threads, socket bool) string {
	fig, capacity, room, def := "pipe100", hackbenchPipeCap, hackbenchPipeRoom, defaultPipeRW
	if socket {
		fig, capacity, room, def = "socket100", hackbenchSocketCap, hackbenchSocketRoom, 3200*time.Nanosecond
	}
	// Every sender writes to each receiver of its group in turn, and a group's 20 senders run on
	// every CPU: each pipe is written from more than one CPU, which the shared figure measures
	// (calibrated only where there is a second CPU).
	half := programCost(p, fig+"_shared", programCost(p, fig, def)).Nanoseconds() / 2
	// A child process's faults and exit (the profile's figures beside a busy CPU, else beside
	// an idle one, else 0), around its messages.
	var start, end string
	if !threads {
		fault := programCost(p, "fault_busy", programCost(p, "fault", 0))
		exit := programCost(p, "exit_busy", programCost(p, "exit", 0))
		if d := hackbenchStartFaults * fault; d > 0 {
			start = fmt.Sprintf("\trun %dns\n", d.Nanoseconds())
		}
		if d := hackbenchExitFaults*fault + exit; d > 0 {
			end = fmt.Sprintf("\trun %dns\n", d.Nanoseconds())
		}
	}
	var b strings.Builder
	b.WriteString(Box)
	for g := range groups {
		for r := range hackbenchFDs {
			fmt.Fprintf(&b, "pipe g%dr%d cap=%d room=%d\n", g, r, capacity, room)
		}
	}
	proc := func(name string) string {
		if threads {
			return " process=hackbench"
		}
		return " process=" + name
	}
	for g := range groups {
		for s := range hackbenchFDs {
			name := fmt.Sprintf("s%d_%d", g, s)
			fmt.Fprintf(&b, "thread %s group=box%s\n%s\trepeat %d\n", name, proc(name), start, loops)
			for r := range hackbenchFDs {
				fmt.Fprintf(&b, "\t\trun %dns\n\t\tsend g%dr%d\n", half, g, r)
			}
			b.WriteString("\tend\n" + end + "end\n")
		}
		for r := range hackbenchFDs {
			name := fmt.Sprintf("r%d_%d", g, r)
			fmt.Fprintf(&b, "thread %s group=box%s\n%s\trepeat %d\n\t\trecv g%dr%d\n\t\trun %dns\n\tend\n%send\n",
				name, proc(name), start, hackbenchFDs*loops, g, r, half, end)
		}
	}
	return b.String()
}

// HackbenchExperiment returns hackbench's time in milliseconds: on the host rt-tests'
// hackbench -g groups -l loops (-T threads, -p pipes, else sockets), in the model
// hackbenchText's workload, until the last receiver has read everything.
func HackbenchExperiment(p *sim.Profile, groups int, threads, socket bool) Experiment {
	loops := HackbenchLoops
	mode, ipc := "process", "pipe"
	args := []string{"hackbench", "-g", fmt.Sprint(groups), "-l", fmt.Sprint(loops)}
	if threads {
		mode = "thread"
		args = append(args, "-T")
	} else {
		args = append(args, "-P")
	}
	if socket {
		ipc = "socket"
	} else {
		args = append(args, "-p")
	}
	w := mustParse(hackbenchText(p, groups, loops, threads, socket))
	return Experiment{Name: fmt.Sprintf("hackbench %s %s, %d group(s)", mode, ipc, groups), Workload: w, Goal: GoalTime,
		Costs: hackbenchSwitchMM(p, threads),
		Metric: Metric{Name: "time (ms)", Of: func(s *sim.Result) float64 {
			if s.Exited < int64(len(s.Threads)) || len(s.Threads) == 0 {
				return math.NaN()
			}
			return float64(s.Makespan) / 1e6
		}},
		Limit:      20 * time.Second,
		HostFigure: peerFigure(args, ParseHackbench, func(b Bench) float64 { return float64(b.Total) / 1e6 })}
}

// hackbenchSwitchMM returns, for hackbench's process mode on a profile that measured
// switch_mm_ring, the adjustment that makes the models charge its median as the switch of
// address space (sim.Costs.SwitchMM, charged where a CPU switches to another process:
// context_switch → switch_mm_irqs_off), and nil otherwise. The profile's switch_mm is perf bench
// sched pipe's, two processes taking turns on a CPU; a CPU running hackbench switches among
// the tens of processes of a group (20 a CPU for a group on two CPUs), the ring's shape, where
// the project's CI machine pays three to four times as much a switch. Threads (-T) share one
// address space and switch without it.
func hackbenchSwitchMM(p *sim.Profile, threads bool) func(*sim.Costs) {
	if threads || p == nil {
		return nil
	}
	f, ok := p.Program["switch_mm_ring"]
	if !ok || f.Cost.P50 <= 0 {
		return nil
	}
	return func(c *sim.Costs) { c.SwitchMM = sim.Fixed(f.Cost.P50) }
}

// CyclictestPeriods is the number of periods of the cyclictest rows: 1 ms each.
const CyclictestPeriods = 2000

// CyclictestExperiment returns the p-th percentile of cyclictest's latency on cpu in
// microseconds: one SCHED_OTHER thread (cyclictest -t1 without -p) sleeping to absolute 1 ms
// deadlines, alone or beside a nice 0 hog on its CPU (loaded). The model is the same period
// with 1 µs of work (cyclictest's clock read and bookkeeping) and Linux's default timer slack of
// a SCHED_OTHER thread, 50 µs (cyclictest does not set its own): on this machine cyclictest at
// SCHED_FIFO (no slack) runs 35 µs late at the median on an idle CPU, at SCHED_OTHER 73 µs.
// cyclictest's main thread asks for
// SCHED_FIFO at its start, which a new cpu cgroup refuses (its cpu.rt_runtime_us is 0), so these
// rows run in the runner's own cgroup, without the Box: Options.Weight does not shield them.
func CyclictestExperiment(cpu int, p float64, loaded bool) Experiment {
	n := CyclictestPeriods
	name := "cyclictest, idle CPU"
	hog := "thread idle\n\trun 1us\nend\n"
	if loaded {
		hog = fmt.Sprintf("thread hog cpus=%d\n\trun forever\nend\n", cpu)
		name = "cyclictest, loaded CPU"
	}
	w := mustParse(fmt.Sprintf("thread cyclictest cpus=%d slack=50us\n\tevery 1ms %d\n\t\trun 1us\n\tend\nend\n", cpu, n) + hog)
	// --laptop leaves /dev/cpu_dma_latency alone, so that the CPU idles as it does otherwise.
	args := []string{"cyclictest", "-q", "--laptop", "-t1", "-a", fmt.Sprint(cpu), "-i", "1000", "-l", fmt.Sprint(n), "-h", "20000"}
	return Experiment{Name: name, Workload: w, Goal: goalFor(p), Metric: LatencyOf("cyclictest", p),
		Limit: time.Duration(n)*time.Millisecond + time.Second,
		HostFigure: func(ctx context.Context, opts Options) (float64, error) {
			opts.Limit = time.Duration(n)*time.Millisecond + 5*time.Second
			opts.Peers = []Peer{{Name: "cyclictest", Args: args, Await: true}}
			r, err := Run(ctx, mustParse(hog), opts)
			if err != nil {
				return 0, err
			}
			pr := r.Peers[0]
			if !pr.Exited || pr.Err != nil {
				return 0, fmt.Errorf("host: cyclictest did not finish: %v %s", pr.Err, pr.Output)
			}
			h, err := ParseCyclictestHistogram(pr.Output)
			if err != nil {
				return 0, err
			}
			v, ok := h.Percentile(p)
			if !ok {
				return math.NaN(), nil
			}
			return float64(v), nil
		}}
}

// peerFigure returns an Experiment.HostFigure that runs args with runPeer, parses its output
// with parse and returns figure of what parse read.
func peerFigure(args []string, parse func(string) (Bench, error), figure func(Bench) float64) func(context.Context, Options) (float64, error) {
	return func(ctx context.Context, opts Options) (float64, error) {
		out, err := runPeer(ctx, opts, args)
		if err != nil {
			return 0, err
		}
		b, err := parse(out)
		if err != nil {
			return 0, err
		}
		return figure(b), nil
	}
}

// runPeer runs args as an awaited peer in the Box (so that Options.Weight shields it) beside a
// thread that does nothing, and returns its output.
func runPeer(ctx context.Context, opts Options, args []string) (string, error) {
	w := mustParse(Box + "thread idle group=box\n\trun 1us\nend\n")
	opts.Peers = []Peer{{Name: args[0], Args: args, Group: "box", Await: true}}
	if opts.Limit < time.Minute {
		opts.Limit = time.Minute
	}
	r, err := Run(ctx, w, opts)
	if err != nil {
		return "", err
	}
	p := r.Peers[0]
	if !p.Exited || p.Err != nil {
		return "", fmt.Errorf("host: %s did not finish: %v %s", strings.Join(args, " "), p.Err, p.Output)
	}
	return p.Output, nil
}

// LatencyExperiments returns the table's rows on time, for the model under profile p (its
// program figures make the benchmarks' workloads), the pinned ones on CPU b:
// seed 004's probe alone, beside a normal group's and an idle group's messaging (p50 and p99),
// perf bench sched pipe (processes and threads, on one CPU and free), hackbench (process and
// thread × pipe and socket, 1, 2 and 4 groups) and cyclictest on an idle and a loaded CPU (p50
// and p99).
func LatencyExperiments(p *sim.Profile, b int) []Experiment {
	var exps []Experiment
	for _, pc := range []float64{50, 99} {
		e := ProbeAloneExperiment(b, 500, pc)
		e.Goal = goalFor(pc)
		exps = append(exps, e)
	}
	for _, idle := range []bool{false, true} {
		for _, pc := range []float64{50, 99} {
			e := Seed004Experiment(b, 500, pc, idle)
			e.Goal = goalFor(pc)
			exps = append(exps, e)
		}
	}
	for _, threads := range []bool{false, true} {
		exps = append(exps, PerfPipeExperiment(p, threads, b), PerfPipeExperiment(p, threads, -1))
	}
	for _, threads := range []bool{false, true} {
		for _, socket := range []bool{false, true} {
			for _, g := range []int{1, 2, 4} {
				exps = append(exps, HackbenchExperiment(p, g, threads, socket))
			}
		}
	}
	for _, loaded := range []bool{false, true} {
		for _, pc := range []float64{50, 99} {
			exps = append(exps, CyclictestExperiment(b, pc, loaded))
		}
	}
	return exps
}
