// This file implements seed004-idlegroup: schbench-like wake-up latency in a normal cgroup
// beside continuous messaging in an idle cgroup, CFS v6.5 with and without FavorNonIdleTick.

package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

func init() { Register(seed004Idlegroup()) }

// seed004Lat are the seed's schbench rows: workers, then p50, p99 and p99.9 (µs) of the
// baseline and of the patched kernel.
var seed004Lat = []struct {
	w                              int
	b50, b99, b999, p50, p99, p999 float64
}{
	{1, 6, 10, 12, 6, 10, 12},
	{2, 6, 11, 19, 7, 12, 18},
	{4, 8, 15, 25, 9, 16, 23},
	{8, 11, 23, 41, 13, 26, 48},
	{16, 20, 44, 1310, 21, 43, 247},
	{23, 28, 62, 5516, 28, 58, 906},
}

// seed004Rows returns the mmtests rows of seed 004's table, Lat 99.9th-qrtle per worker
// count, baseline then patched (the patched rows against the baseline's), with the seed's
// figures; on says where they come from.
func seed004Rows(on string) []Row {
	var rows []Row
	for _, l := range seed004Lat {
		lbl := fmt.Sprintf("Lat 99.9th-qrtle-%d", l.w)
		rows = append(rows, Row{Label: lbl, Column: "v6.5-baseline", Policy: "cfs:v6.5", Set: Values{"workers": float64(l.w)},
			Published: &Figure{Value: l.b999, Unit: "us", On: on}})
	}
	for _, l := range seed004Lat {
		lbl := fmt.Sprintf("Lat 99.9th-qrtle-%d", l.w)
		rows = append(rows, Row{Label: lbl, Column: "v6.5-patched", Policy: "cfs:v6.5+favor-nonidle-tick", Set: Values{"workers": float64(l.w)},
			Baseline: "v6.5-baseline/" + lbl, Published: &Figure{Value: l.p999, Unit: "us", On: on}})
	}
	return rows
}

// workerPercentile returns a metric: the p-th percentile of the workers' wake-up latency, pooled
// over every worker thread, in µs (0 when no worker woke).
func workerPercentile(p float64) func(r *sim.Result, _ *Setup) float64 {
	return func(r *sim.Result, _ *Setup) float64 {
		h := r.Pooled(sim.WakeupLatency, func(t *sim.ThreadStats) bool { return strings.HasPrefix(t.Name, "worker") })
		v, ok := h.Percentile(p)
		if !ok {
			return 0
		}
		return float64(v) / 1e3
	}
}

// walkPercentile is the p-th percentile of schbench's latency in µs (walkLatencies).
func walkPercentile(p float64) func(r *sim.Result, _ *Setup) float64 {
	return func(r *sim.Result, _ *Setup) float64 {
		v, ok := walkLatencies(r).Percentile(p)
		if !ok {
			return 0
		}
		return float64(v) / 1e3
	}
}

// walkLatencies returns schbench's latencies in a run of seed004-idlegroup's workload, read from
// its trace. schbench (schbench.c from 2016 to 2021, xlist_wake_all) reads the clock once before
// the message thread wakes the workers on its list, "to detect when the scheduler is just
// preempting the waker and giving away the rest of its timeslice", and each worker's latency
// runs from that reading to its own clock read once it runs (msg_and_wait): here from the
// message thread's first switch-in after its sleep to each worker's switch-in after the
// message thread woke it.
func walkLatencies(r *sim.Result) *sim.Histogram {
	h := &sim.Histogram{}
	if r.Trace == nil {
		return h
	}
	msg := sched.ID(-1)
	worker := make(map[sched.ID]bool)
	for i := range r.Threads {
		switch t := &r.Threads[i]; {
		case t.Name == "message":
			msg = t.ID
		case strings.HasPrefix(t.Name, "worker"):
			worker[t.ID] = true
		}
	}
	var start int64
	slept := false
	woken := make(map[sched.ID]int64)
	for _, rec := range r.Trace.Records {
		switch {
		case rec.Kind == sim.KindWakeup && rec.Thread == msg:
			slept = true
		case rec.Kind == sim.KindSwitch && rec.Thread == msg && slept:
			start, slept = rec.Time, false
		case rec.Kind == sim.KindWakeup && rec.Other == int32(msg) && worker[rec.Thread]:
			woken[rec.Thread] = start
		case rec.Kind == sim.KindSwitch && worker[rec.Thread]:
			if t0, ok := woken[rec.Thread]; ok {
				h.Add(rec.Time - t0)
				delete(woken, rec.Thread)
			}
		}
	}
	return h
}

func seed004Idlegroup() *Scenario {
	on := "seed 004 (Chuyi Zhou, \"sched/fair: favor non-idle group in tick preemption\", 2022): schbench in a normal cgroup " +
		"beside `perf bench sched messaging -g 1 -l 1000000000` in an idle cgroup, mmtests, Linux 6.1-era CFS"
	rows := seed004Rows(on)
	return &Scenario{
		Name:  "seed004-idlegroup",
		Seed:  "004",
		Title: "schbench wake-up latency beside an idle cgroup's messaging load, CFS v6.5 without and with FavorNonIdleTick",
		Description: `Seed 004's patch lets a non-idle task run out its slice at the tick when the leftmost entity is an
idle-cgroup one. Its schbench table (wake-up latency percentiles in µs for 1-23 workers) shows the tail
at 16 and 23 workers falling from 1310 to 247 µs and from 5516 to 906 µs (p99.9). Modelled on 24 CPUs
(schbench's 23 workers are mmtests' NUMCPUS-1): one message thread wakes its workers every sleep_ms plus
a jitter of up to a quarter of it (schbench -s, 30000 µs by default), each worker computes cpu_ms
(schbench -c, 30000 µs) and waits for the next wake-up; the metric is schbench's latency, from the message
thread's clock read before it wakes the workers to each worker's run; in an idle cgroup, 20 senders and
20 receivers (perf bench sched messaging -g 1) exchange messages without end, one simulated message
standing for a batch of msg_us of work.`,
		Params: []Param{
			{Name: "workers", Doc: "schbench workers", Default: 16, Min: 1, Max: 256, Integer: true},
			{Name: "cpus", Doc: "CPUs", Default: 24, Min: 1, Max: 256, Integer: true},
			{Name: "sleep_ms", Doc: "schbench -s (sleeptime; the message thread sleeps it plus a jitter of up to a quarter)", Unit: "ms", Default: 30, Min: 0.01, Max: 1000},
			{Name: "cpu_ms", Doc: "schbench -c (cputime)", Unit: "ms", Default: 30, Min: 0.001, Max: 1000},
			{Name: "msg_us", Doc: "CPU per simulated message of the idle group's messaging (a batch: an assumption)", Unit: "us", Default: 200, Min: 1, Max: 1e5},
			{Name: "wake_us", Doc: "message thread's CPU per worker it wakes, beyond the machine profile's wakeup (0: the profile's alone)", Unit: "us", Default: 0, Min: 0, Max: 1e4},
			{Name: "switch_us", Doc: "context-switch cost in place of the machine profile's (sim.Costs.Switch; 0: the profile's)", Unit: "us", Default: 0, Min: 0, Max: 1e4},
			{Name: "ipi_us", Doc: "IPI latency in place of the machine profile's (sim.Costs.IPI; 0: the profile's)", Unit: "us", Default: 0, Min: 0, Max: 1e4},
			{Name: "seconds", Doc: "simulated time", Unit: "s", Default: 3, Min: 0.1, Max: 600},
		},
		Rows: rows,
		Metrics: []Metric{
			{Name: "p99.9", Unit: "us", Of: walkPercentile(99.9)},
			{Name: "p50", Unit: "us", Of: walkPercentile(50)},
			{Name: "p99", Unit: "us", Of: walkPercentile(99)},
			{Name: "wake p99.9", Unit: "us", Of: workerPercentile(99.9)},
		},
		Build:     buildIdlegroup,
		MMTests:   true,
		Reps:      5,
		Small:     Values{"seconds": 0.5},
		SmallReps: 3,
		Expect: []Expectation{
			// With the machine's costs one worker's tail is the machine's own: the tails of the
			// profile's timer, IPI and idle exit (the CI machine is a virtual machine; the seed's
			// 12 us were measured on its own, unnamed machine). Positive: no longer the ideal 0.
			{Doc: "one worker's tail is the machine's own, not 0 (seed: 12 us)", Row: "v6.5-baseline/Lat 99.9th-qrtle-1", Min: 1, Max: 2000},
			{Doc: "so is the patched kernel's (seed: 12 us)", Row: "v6.5-patched/Lat 99.9th-qrtle-1", Min: 1, Max: 2000},
		},
		Claims: []Claim{
			{Text: "schbench p99.9, 16 workers: the patch cuts 1310 → 247 µs", Row: "v6.5-patched/Lat 99.9th-qrtle-16",
				Why: "the tails come out, from woken workers queued behind running ones, which the patch does not touch"},
			{Text: "… 23 workers: 5516 → 906 µs", Row: "v6.5-patched/Lat 99.9th-qrtle-23",
				Why: "the tails come out, from woken workers queued behind running ones, which the patch does not touch"},
		},
		Notes: []string{
			"Not reproduced. Sources read: schbench.c (git.kernel.org mason/schbench, the versions of 2016-04-06 " +
				"to 2021-12-03; mmtests' shellpack runs it as schbench -r RUNTIME -m MESSAGE_THREADS -t N, so with its " +
				"defaults): -s and -c are 30000 µs (10000 only in the first commit, 2016-04-04); the message thread " +
				"sleeps sleeptime plus rand() % (sleeptime/4) between walks; a worker spins cputime by the wall clock, " +
				"then queues itself and waits; and xlist_wake_all reads the clock once before it wakes the queued " +
				"workers, \"to detect when the scheduler is just preempting the waker\", so each worker's latency " +
				"runs from that read to its own once it runs. The model follows all three.",
			"With the default profile (the CI machine's costs, HZ=250) the tails come out and grow with the " +
				"workers: p99.9 at the default 5 runs about 0.15 ms at one worker, 0.4 ms at 16 and 8 ms at 23 " +
				"(the seed: 12 µs, 1310 µs, 5516 µs), p50 13, 51 and 60 µs (seed 6, 20, 28); over 30 s a run " +
				"(schedbench sweep -set seconds=30 seed004-idlegroup; the seed does not give its run's length) " +
				"1.8 ms at 16 workers and 11 ms at 23, the patched kernel 0.96× and 0.99× of that. The tail's mechanism " +
				"in the model: with 23 workers and the message thread on 24 CPUs no CPU is free of the normal " +
				"group (select_idle_sibling counts a CPU running only idle-group tasks as idle), so a woken worker " +
				"queues behind a spinning one whose vruntime is within the wakeup granularity and waits for the " +
				"tick to end that one's slice. FavorNonIdleTick changes none of it beyond the runs' spread: it " +
				"acts on the tick's comparison of the normal group's entity with an idle one at the root, which " +
				"in the model does preempt spinning workers for the idle group (about 37 times a second at 16 " +
				"workers) but out of their spin, which schbench times by the wall clock and does not count. " +
				"On the ideal machine every percentile at one worker is 0: a worker runs the instant it is woken.",
			"hackbench, tbench and perf-bench-pipe, the seed's other tables, are the scenarios seed004-hackbench-*, " +
				"seed004-tbench and seed004-perfpipe, with costs measured from the real programs.",
			"The idle group's messaging is coarse (one simulated message per msg_us of work, an assumption): the seed's tail " +
				"effect depends on how often an idle-group task is the leftmost entity at a tick, which the batch size changes. " +
				"Swept (schedbench sweep -grid msg_us=10,50,200 seed004-idlegroup, 5 runs of 3 s), the patched kernel's " +
				"p99.9 against the baseline's at 16 workers is 3.25× (significant: the opposite of the seed's 0.19×), 0.75× and " +
				"1.15×, at 23 workers 1.92×, 0.53× and 0.98× (not significant). Where the idle group is dense the baseline's tick " +
				"preemption for it helps a queued worker: when the normal group's entity runs again it picks its leftmost " +
				"task, the woken worker, rather than finish the spinning one's slice, which the patch lets run to its end.",
			"The machine is 24 independent CPUs in one cache; the seed does not name its machine.",
		},
	}
}

func buildIdlegroup(v Values, _ *Row) (Setup, error) {
	nw, cpus := int(v["workers"]), int(v["cpus"])
	ms := func(x float64) workload.Dist { return workload.Fixed(workload.Duration(x * 1e6)) }
	w := &workload.Workload{Groups: []workload.Group{{Name: "online"}, {Name: "offline", Idle: true}}}
	sleep := workload.Duration(v["sleep_ms"] * 1e6)
	msg := []workload.Op{workload.SleepOp(workload.Between(sleep, sleep+sleep/4))}
	for i := 0; i < nw; i++ {
		p := fmt.Sprintf("wake%d", i)
		w.Pipes = append(w.Pipes, workload.Pipe{Name: p})
		if v["wake_us"] > 0 {
			msg = append(msg, workload.RunOp(ms(v["wake_us"]/1e3)))
		}
		msg = append(msg, workload.SendOp(p, 1))
	}
	w.Threads = append(w.Threads, workload.Thread{Name: "message", Group: "online", Ops: []workload.Op{workload.LoopOp(msg...)}})
	for i := 0; i < nw; i++ {
		w.Threads = append(w.Threads, workload.Thread{Name: fmt.Sprintf("worker%d", i), Group: "online", Ops: []workload.Op{
			workload.LoopOp(workload.RecvOp(fmt.Sprintf("wake%d", i), 1), workload.RunOp(ms(v["cpu_ms"])))}})
	}
	addMessaging(w, v["msg_us"])
	costs := sim.Costs{Switch: sim.Fixed(time.Duration(v["switch_us"] * 1e3)), IPI: sim.Fixed(time.Duration(v["ipi_us"] * 1e3))}
	return Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, cpus, 1), Costs: costs, Trace: sim.TraceFull}, Workload: w,
		Until: time.Duration(v["seconds"] * float64(time.Second))}, nil
}

// addMessaging adds to w the idle cgroup "offline"'s endless `perf bench sched messaging -g 1`
// (tools/perf/bench/sched-messaging.c): 20 senders, each writing to every one of 20 receivers,
// one simulated message standing for msgUs of work on each side.
func addMessaging(w *workload.Workload, msgUs float64) {
	const fds = 20
	cost := workload.Fixed(workload.Duration(msgUs / 1e3 * 1e6)) // as ms(msgUs/1e3) computes it
	var send []workload.Op
	for r := 0; r < fds; r++ {
		p := fmt.Sprintf("msg%d", r)
		w.Pipes = append(w.Pipes, workload.Pipe{Name: p, Cap: 64})
		send = append(send, workload.RunOp(cost), workload.SendOp(p, 1))
		w.Threads = append(w.Threads, workload.Thread{Name: fmt.Sprintf("receiver%d", r), Group: "offline", Ops: []workload.Op{
			workload.LoopOp(workload.RecvOp(p, 1), workload.RunOp(cost))}})
	}
	w.Threads = append(w.Threads, workload.Thread{Name: "sender", Count: fds, Group: "offline", Ops: []workload.Op{workload.LoopOp(send...)}})
}
