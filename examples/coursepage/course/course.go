// Package course is the catalogue of lesson workloads the course page offers and the run that
// turns one into what the page draws. It is built both into the page's WebAssembly module and
// into the generator's tests, so that the page and the tests run exactly the same code.
package course

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/top"
	"github.com/schedkit/schedkit/topology"
)

// A Lesson is a workload of the course with the machine and policies it is meant for.
type Lesson struct {
	Name     string   `json:"name"`
	Title    string   `json:"title"`
	Example  string   `json:"example"` // the program of examples/ that tells the story
	Workload string   `json:"workload"`
	Topology string   `json:"topology"`
	Policies []string `json:"policies"`
	Millis   int      `json:"millis"`
	// Kind is "runq" for the run-queue tour, whose steps come from RunqTour and are drawn as
	// the status bits and queues, and empty for a simulated workload.
	Kind string `json:"kind,omitempty"`
	// Look says what to look for on the page; Source names the kernel file and functions the
	// lesson's policies mirror; Questions are answered from what the page draws.
	Look      string   `json:"look"`
	Source    string   `json:"source"`
	Questions []string `json:"questions"`
}

// texts holds each lesson's page text by lesson name.
var texts = map[string]struct {
	look, source string
	questions    []string
}{
	"toy": {
		"Where an operating-systems course starts: jobs A (100 ms), B and C (10 ms each) arrive together on one CPU. FIFO runs A first and B and C wait behind it (the convoy effect); SJF runs the jobs that declared the shortest run first; round robin gives each a quantum in turn. Read each job's completion time off the chart.",
		"no kernel: OSTEP chapter 7, \"Scheduling: Introduction\"; package toy's Pick (the dispatcher's choice) and Expired (the timer's \"time's up\")",
		[]string{
			"Under toy:fifo, when do A, B and C finish, and what is their average turnaround time?",
			"Under toy:sjf, what is the average turnaround time, and which job pays for it?",
			"Under toy:rr, when does A finish compared with FIFO and SJF?",
		}},
	"runqtour": {
		"Each filled cell is a non-empty queue: bit i of the status words is set exactly when queue i holds a thread, and the threads stand under their bit in the order they leave. Step and watch a bit follow its queue. A search (runq_findq) offers only non-empty queues in its range (underlined) to its predicate: outlined orange where the predicate declined, black where it stopped.",
		"FreeBSD sys/kern/kern_switch.c: runq_add, runq_add_idx, runq_remove, runq_findq, runq_choose, runq_steal",
		[]string{
			"Step 4: why does runq_choose stop at the first queue it is offered, and which bit does Remove clear afterwards?",
			"Step 8: the thief stops at queue 150, whose head is make. Which thread does it take, and why is queue 150's bit still set at step 9?",
			"Step 10: queue 8 is non-empty and inside the range, yet the search reports no queue. What did the predicate answer?",
		}},
	"calendar": {
		"The share line under the chart: under ULE a nice 0 and a nice 20 hog split one CPU close to 50:50, because the timeshare calendar serves every queue in turn; priority only sets how far ahead of the insert index a thread is queued. Compare with 4BSD and CFS, where nice decides the share.",
		"FreeBSD sys/kern/sched_ule.c: tdq_runq_add (insert at tdq_idx plus the priority's offset), tdq_choose (runq_findq from tdq_ridx, wrapping), sched_priority; Linux kernel/sched/fair.c for cfs:v6.5",
		[]string{
			"What share does nice20 get under ule:main, and under cfs:v6.5?",
			"Step through the decisions under ule:legacy: does nice0 run twice in a row while nice20 waits?",
		}},
	"pickshort": {
		"gzip on CPU 1 is woken by tar from CPU 0 and queued behind the hog. Find a wake-up of gzip in the decisions and read on the chart how long it waits: with pick_short off it waits for the hog's whole slice; with pick_short on and preempt_thresh 224 it runs at once.",
		"FreeBSD sys/kern/sched_ule.c: sched_wakeup, sched_add, tdq_add, tdq_notify, sched_shouldpreempt (preempt_thresh); the fix is FreeBSD commit ea8294fe",
		[]string{
			"Under ule:seed000-ps0-pt48, how long after a wake-up of gzip does gzip get CPU 1?",
			"Which policy lets gzip finish its 200 blocks within the simulated second?",
		}},
	"posixlevels": {
		"gate (rtprio 0) holds the CPU for 5 ms while three SCHED_FIFO threads wait, started least important first: p28 (rtprio 3, POSIX 28), p29 (rtprio 2) and p30 (rtprio 1). Read the real-time queues in the state at the first decision. ule:legacy's run queue has 64 queues of four priorities each (RQ_PPQ 4), so all four threads share one queue and leave in arrival order. ule:main gives every priority its own queue, so the most important thread leaves first.",
		"FreeBSD sys/kern/kern_resource.c: rtp_to_pri (PRI_MIN_REALTIME + rtprio); sys/kern/kern_switch.c: runq_add (RQ_PRI_TO_QUEUE_IDX), runq_choose; sys/sys/runq.h: RQ_NQS, RQ_PPQ",
		[]string{
			"Under ule:legacy, which real-time queue holds p28, p29 and p30 while gate runs, and in what order do they run after it?",
			"Under ule:main, which queues hold them, and which thread runs when gate exits?",
			"POSIX says a thread of priority 30 runs before one of 28. Which of the two run queues keeps that rule?",
		}},
	"estcpu": {
		"4BSD's decay-usage priority, read from the thread table under the state. The hog's estcpu grows by one for each statistics tick (127 a second) that finds it running. Every INVERSE_ESTCPU_WEIGHT units cost it a priority level (resetpriority: PUSER + estcpu/IEW + nice). Once a second schedcpu multiplies every awake thread's estcpu by 2·load/(2·load+1). The sleeper runs 10 ms every 50 ms, so its estcpu stays low and it runs first when it wakes.",
		"FreeBSD sys/kern/sched_4bsd.c: sched_clock (estcpu += 1), resetpriority, schedcpu and decay_cpu (loadfactor), updatepri (the sleeper's catch-up), sched_wakeup",
		[]string{
			"Step through the first 200 ms under bsd4:main: how do the hog's estcpu and pri change between two decisions about 100 ms apart?",
			"When the sleeper wakes, what are its estcpu and pri, and does it preempt the hog?",
			"After the first schedcpu (t = 1 s), by what factor did the hog's estcpu shrink, and what load average does the header show?",
		}},
	"eevdf": {
		"EEVDF on one CPU. Two hogs of the same weight ask for different slices (slice=): short asks for 1 ms and long for 10 ms. In the state each entity is a dot at its vruntime, with a bar to its virtual deadline (vruntime + slice·1024/weight). A new task's first deadline is half of that (place_entity, PLACE_DEADLINE_INITIAL). The red line is V, the weighted average vruntime. Entities left of V are eligible (green, lag ≥ 0), and the eligible one with the earliest deadline runs. cfs:v6.6 ignores the request: every slice is the base slice, 0.75 ms. cfs:v6.5 has no deadlines and picks the smallest vruntime.",
		"Linux kernel/sched/fair.c: avg_vruntime, entity_eligible, update_deadline, place_entity, pick_eevdf; __setparam_fair (sched_attr.sched_runtime as the custom slice, 6.12 and later)",
		[]string{
			"Under cfs:v7.1, how long is each bar (deadline − vruntime) for short and for long, and why?",
			"Find a decision where one entity is grey (not eligible): where does its dot lie relative to V?",
			"Which hog gets the CPU more often, and does it get a larger share of the CPU?",
		}},
	"balance": {
		"Six CPU hogs on four CPUs in two last-level caches. Each CPU's cfs_rq is drawn with its nr_running and load. CFS spreads the hogs by wake-up placement and then by load_balance along the sched domains (LLC, then machine): two CPUs end up with two hogs. ULE balances its per-CPU queues with sched_balance and tdq_idled instead.",
		"Linux kernel/sched/fair.c: select_task_rq_fair, load_balance, find_busiest_group, update_sd_lb_stats, detach_tasks; kernel/sched/topology.c: build_sched_domains; FreeBSD sys/kern/sched_ule.c: sched_balance, tdq_idled",
		[]string{
			"Under cfs:v6.5, what is each CPU's nr_running at the last decision, and do the two busy CPUs share a cache?",
			"Do the hogs change CPUs after the first 100 ms under cfs:v6.5? Count the migrate decisions.",
			"How do the shares under ule:main compare with those under cfs:v6.5?",
		}},
	"onerun": {
		"Three workers run and sleep for random (exponential) times beside a nice 5 hog. Run once, note the shares, then change the seed and run again. Each seed gives another random draw, and a worker's share moves by several points from seed to seed, more than the differences some papers report between schedulers. One run is one sample. examples/onerun repeats the run over many seeds and lets ministat say what a difference needs.",
		"no kernel: ministat (FreeBSD usr.bin/ministat) for the statistics; sys/kern/sched_4bsd.c and sched_ule.c for the two policies",
		[]string{
			"What share does the hog get under bsd4:main with seed 1, with seed 2 and with seed 3?",
			"Is the difference between ule:legacy and bsd4:main in the hog's share larger than the spread over three seeds of one policy?",
		}},
	"interactivity": {
		"The editor sleeps far more than it runs, so ULE scores it interactive and gives it a priority below PRI_MIN_BATCH, which tdq_runq_add queues on the real-time queue, served before the calendar of the compiler and the hogs. Watch where the editor runs after each of its wake-ups.",
		"FreeBSD sys/kern/sched_ule.c: sched_interact_score, sched_interact_update, sched_priority, tdq_slice; Linux kernel/sched/fair.c for the cfs policies",
		[]string{
			"After the editor wakes under ule:main, how long until it runs, and what does the decision's explanation say about it?",
			"What CPU share does the compiler get under ule:main, and under cfs:v6.5?",
		}},
	"vruntime": {
		"Three hogs at nice 0, 1 and 5 on one CPU. CFS charges each its runtime scaled by 1024 over its weight and runs the smallest virtual runtime, so the shares follow the weights 1024, 820 and 335 of sched_prio_to_weight.",
		"Linux kernel/sched/fair.c: update_curr, calc_delta_fair, __calc_delta, pick_next_entity; kernel/sched/core.c: sched_prio_to_weight",
		[]string{
			"Compute 1024/2179, 820/2179 and 335/2179 and compare them with the share line under cfs:v6.5.",
			"How do ule:main and bsd4:main split the same three hogs?",
		}},
	"idlegroup": {
		"Four periodic workers beside four SCHED_IDLE hogs on one CPU. An idle-policy task has weight 3 against a worker's 1024, and a waking worker preempts an idle-policy task. Find a worker's wake-up and read how soon it runs.",
		"Linux kernel/sched/fair.c: wakeup_preempt_fair (check_preempt_wakeup_fair before 6.8), sched_idle_cfs_rq, sched_idle_rq; kernel/sched/sched.h: WEIGHT_IDLEPRIO",
		[]string{
			"When a worker wakes while a hog runs, how long until the worker is on the CPU?",
			"What share of the CPU do the four hogs get together, and why is it not 3/(3+1024) of it?",
		}},
	"migration": {
		"Five CPU-bound jobs on four CPUs: one CPU must share. ULE keeps a queue per CPU and moves threads only by balancing and stealing; 4BSD has one global queue and any CPU takes the next thread. Count the migrate decisions and watch the Gantt lanes.",
		"FreeBSD sys/kern/sched_ule.c: sched_pickcpu, sched_balance, sched_balance_pair, tdq_move, tdq_idled; sys/kern/sched_4bsd.c: sched_add, sched_choose",
		[]string{
			"Under ule:legacy, which jobs stay on one CPU, and which share one?",
			"Under bsd4:main, how often does a job change CPU within the first 100 ms?",
		}},
}

// withText returns l with its page text filled in from texts.
func withText(l Lesson) Lesson {
	t, ok := texts[l.Name]
	if !ok {
		panic("course: lesson " + l.Name + " has no text")
	}
	l.Look, l.Source, l.Questions = t.look, t.source, t.questions
	return l
}

// Lessons returns the workloads the page offers, in course order, each with its page text.
func Lessons() []Lesson {
	ls := lessons()
	for i := range ls {
		ls[i] = withText(ls[i])
	}
	return ls
}

// lessons is the catalogue without its text.
func lessons() []Lesson {
	return []Lesson{
		{"toy", "The textbook's FIFO, SJF and round robin: one long job and two short ones (OSTEP ch. 7)", "",
			"thread A slice=100ms\n\trun 100ms\nend\n\nthread B slice=10ms\n\trun 10ms\nend\n\nthread C slice=10ms\n\trun 10ms\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"toy:fifo", "toy:sjf", "toy:rr"}, 200, "", "", "", nil},
		{Name: "runqtour", Title: "FreeBSD's run queue: 256 queues and the status bits (runq tour)", Example: "runqtour",
			Topology: "package:1 node:1 llc:1 cpu:1", Policies: []string{"runq"}, Millis: 1, Kind: "runq"},
		{"posixlevels", "64 queues against 256: POSIX real-time levels served out of order (seed 003)", "posixlevels",
			"thread gate class=fifo rtprio=freebsd:0\n\trun 5ms\nend\n\nthread p28 class=fifo rtprio=freebsd:3\n\trun 2ms\nend\n\n" +
				"thread p29 class=fifo rtprio=freebsd:2\n\trun 2ms\nend\n\nthread p30 class=fifo rtprio=freebsd:1\n\trun 2ms\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"ule:legacy", "ule:main"}, 20, "", "", "", nil},
		{"estcpu", "4BSD's estcpu: a hog and a sleeper", "estcpu",
			"thread hog\n\trun forever\nend\n\nthread sleeper\n\tloop\n\t\tsleep 40ms\n\t\trun 10ms\n\tend\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"bsd4:main", "ule:main"}, 3000, "", "", "", nil},
		{"calendar", "ULE's calendar: nice 0 against nice 20 on one CPU (seed 000)", "calendar",
			"thread nice0\n\trun forever\nend\n\nthread nice20 nice=20\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"ule:legacy", "ule:main", "bsd4:main", "cfs:v6.5"}, 2000, "", "", "", nil},
		{"pickshort", "Partial-slice starvation: gzip fed by tar beside a hog (seed 000)", "pickshort",
			"pipe data cap=1\n\nthread tar cpus=0\n\trepeat 200\n\t\trun 1500us\n\t\tsend data\n\tend\nend\n\n" +
				"thread gzip cpus=1\n\trepeat 200\n\t\trecv data\n\t\trun 1ms\n\tend\nend\n\n" +
				"thread hog cpus=1 nice=20\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:2", []string{"ule:seed000-ps0-pt48", "ule:seed000-ps1-pt224", "bsd4:main", "cfs:v6.5"}, 1000, "", "", "", nil},
		{"interactivity", "ULE's interactivity: an editor, a compiler and two hogs", "interactivity",
			"thread editor\n\tloop\n\t\tsleep exp(100ms)\n\t\trun exp(1ms)\n\tend\nend\n\n" +
				"thread compiler\n\tloop\n\t\trun 20ms\n\t\tsleep 20ms\n\tend\nend\n\n" +
				"thread hog\n\trun forever\nend\n\nthread nicehog nice=20\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"ule:main", "ule:legacy", "cfs:v6.5", "cfs:v7.1"}, 2000, "", "", "", nil},
		{"vruntime", "CFS shares by weight: hogs at nice 0, 1 and 5", "vruntime",
			"thread nice0\n\trun forever\nend\n\nthread nice1 nice=1\n\trun forever\nend\n\nthread nice5 nice=5\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"cfs:v6.5", "cfs:v7.1", "ule:main", "bsd4:main"}, 1000, "", "", "", nil},
		{"idlegroup", "SCHED_IDLE: workers beside idle hogs (seed 004)", "idlegroup",
			"thread worker count=4\n\tevery 10ms\n\t\trun exp(1500us)\n\tend\nend\n\n" +
				"thread hog count=4 class=idle\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"cfs:v6.5", "cfs:v7.1"}, 500, "", "", "", nil},
		{"eevdf", "EEVDF: lag, eligibility and deadlines of a short and a long slice", "eevdf",
			"thread short slice=1ms\n\trun forever\nend\n\nthread long slice=10ms\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"cfs:v7.1", "cfs:v6.6", "cfs:v6.5"}, 200, "", "", "", nil},
		{"balance", "Load balancing: six hogs on two caches of two CPUs", "balance",
			"thread hog count=6\n\trun forever\nend\n",
			"package:1 node:1 llc:2 cpu:2", []string{"cfs:v6.5", "cfs:v7.1", "ule:main"}, 1000, "", "", "", nil},
		{"migration", "CPU-bound jobs on four CPUs: who migrates (seed 001)", "",
			"thread job count=5\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:4", []string{"ule:legacy", "ule:main", "bsd4:main", "cfs:v6.5"}, 3000, "", "", "", nil},
		{"onerun", "One run proves nothing: the same workload under other seeds (seeds 002, 000)", "onerun",
			"thread worker count=3\n\tloop\n\t\trun exp(2ms)\n\t\tsleep exp(3ms)\n\tend\nend\n\nthread hog nice=5\n\trun forever\nend\n",
			"package:1 node:1 llc:1 cpu:1", []string{"bsd4:main", "ule:legacy"}, 2000, "", "", "", nil},
	}
}

// A Slice is a thread on a CPU from Start to End (nanoseconds).
type Slice struct {
	CPU   int   `json:"cpu"`
	TID   int   `json:"tid"`
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

// A Decision is one thing the policy did or said, in the order it happened.
type Decision struct {
	Time int64  `json:"t"`
	CPU  int    `json:"cpu"`
	TID  int    `json:"tid"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// A Run is what the page draws: the threads, the CPU slices and the decisions with the
// policy's explanations, and each thread's share.
type Run struct {
	Policy    string     `json:"policy"`
	CPUs      int        `json:"cpus"`
	End       int64      `json:"end"`
	Threads   []string   `json:"threads"`
	Shares    []float64  `json:"shares"`
	Slices    []Slice    `json:"slices"`
	Decisions []Decision `json:"decisions"`
	Truncated bool       `json:"truncated"`
	// StateKind says which snapshot State(i) returns: "ule" (ule.State), "bsd4" (bsd4.State),
	// "cfs" (CFSState), or "" for a policy without one.
	StateKind string            `json:"state_kind"`
	states    []json.RawMessage // the snapshot after each decision, shared by a step's decisions
	// Top holds top's screens every tenth of the run (package bench/top: FreeBSD's columns
	// for ULE and 4BSD, procps' for CFS), for the policies top reads.
	Top []TopScreen `json:"top"`
}

// A TopScreen is one screen of top at simulated time At (ns), as the tool prints it.
type TopScreen struct {
	At   int64  `json:"at"`
	Text string `json:"text"`
}

// MaxDecisions bounds what a run sends to the page.
const MaxDecisions = 20000

// Simulate runs a workload under a policy on a topology for the given simulated time, with the
// policy's explanations on, and returns what the page draws. Every error names its input.
func Simulate(workloadText, policy, topo string, d time.Duration, seed uint64) (*Run, error) {
	if d <= 0 || d > 60*time.Second {
		return nil, errors.New("duration must be in (0, 60s]")
	}
	w, err := workload.Parse(workloadText)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	t, err := topology.Parse(topo)
	if err != nil {
		return nil, err
	}
	p, err := presets.New(policy)
	if err != nil {
		return nil, err
	}
	cfg := sim.Config{Topology: t, Hz: 1000, StatHz: 127, Seed: seed, Trace: sim.TraceFull, Explain: true, FlattenGroups: true}
	m, err := sim.New(cfg, p, w)
	if err != nil {
		return nil, err
	}
	kind, snap, drop := stateOf(p)
	run := &Run{Policy: policy, CPUs: t.NumIDs(), StateKind: kind}
	tr := m.Trace()
	running := make([]int, t.NumIDs()) // thread on each CPU, -1 idle
	since := make([]int64, t.NumIDs())
	for i := range running {
		running[i] = -1
	}
	// The machine is stepped one event at a time, as Machine.Run steps it, so that the policy's
	// state can be taken after each event that made a decision; taking it only reads.
	done := 0
	screens := newTopScreens(p, policy, d)
	for {
		at, ok := m.Next()
		if err := screens.before(m, at, ok, &run.Top); err != nil {
			return nil, err
		}
		if !ok || at > int64(d) {
			break
		}
		m.Step()
		before := len(run.Decisions)
		for ; done < len(tr.Records); done++ {
			run.record(tr, tr.Records[done], running, since)
		}
		switch {
		case snap != nil && len(run.Decisions) > before:
			st := stateJSON(snap(), threadNames(tr))
			for len(run.states) < len(run.Decisions) {
				run.states = append(run.states, st)
			}
		case snap != nil:
			drop()
		}
	}
	if err := m.Run(d); err != nil { // nothing is left before d: this ends the run at d
		return nil, err
	}
	for ; done < len(tr.Records); done++ {
		run.record(tr, tr.Records[done], running, since)
	}
	res := m.Result()
	run.End = res.End
	for i := range res.Threads {
		run.Threads = append(run.Threads, res.Threads[i].Name)
		run.Shares = append(run.Shares, res.Threads[i].Share())
	}
	for cpu, tid := range running {
		if tid >= 0 && res.End > since[cpu] {
			run.Slices = append(run.Slices, Slice{cpu, tid, since[cpu], res.End})
		}
	}
	return run, nil
}

// topScreens takes top's screens of a run every tenth of its length, for a policy top reads.
type topScreens struct {
	w           *top.Watcher // nil for a policy top does not read
	every, next time.Duration
	end         time.Duration
	policy      string
}

func newTopScreens(p sim.Policy, policy string, d time.Duration) *topScreens {
	w, _ := top.New(p)
	every := max(d/10/time.Millisecond*time.Millisecond, time.Millisecond)
	return &topScreens{w: w, every: every, next: every, end: d, policy: policy}
}

// before takes, into out, the screens due before m's next event at at (ok false: there is
// none): each once every event up to its time has run, as top -d shows it.
func (ts *topScreens) before(m *sim.Machine, at int64, ok bool, out *[]TopScreen) error {
	for ts.w != nil && ts.next <= ts.end && (!ok || at > int64(ts.next)) {
		if err := m.Run(ts.next); err != nil {
			return err
		}
		*out = append(*out, TopScreen{int64(ts.next), ts.w.Screen(m.Result()).Text(ts.policy)})
		ts.next += ts.every
	}
	return nil
}

// record adds what the page shows of one trace record: a CPU slice ended by a switch, and the
// decisions (switches, explanations, wake-ups, migrations, reschedules) up to MaxDecisions.
func (run *Run) record(tr *sim.Trace, r sim.Record, running []int, since []int64) {
	cpu := int(r.CPU)
	switch r.Kind {
	case sim.KindSwitch:
		if running[cpu] >= 0 && r.Time > since[cpu] {
			run.Slices = append(run.Slices, Slice{cpu, running[cpu], since[cpu], r.Time})
		}
		running[cpu], since[cpu] = int(r.Thread), r.Time
	case sim.KindExplain, sim.KindWakeup, sim.KindMigrate, sim.KindResched:
	default:
		return
	}
	if len(run.Decisions) == MaxDecisions {
		run.Truncated = true
		return
	}
	text := tr.Format(r)
	if r.Kind == sim.KindExplain && int(r.Other) < len(tr.Strings) {
		text = tr.Strings[r.Other]
	}
	c := cpu
	if r.CPU == sim.NoCPU {
		c = -1
	}
	run.Decisions = append(run.Decisions, Decision{r.Time, c, int(r.Thread), r.Kind.String(), text})
}

// threadNames returns the names of the trace's threads so far, indexed by id.
func threadNames(tr *sim.Trace) []string {
	names := make([]string, len(tr.Threads))
	for i := range tr.Threads {
		names[i] = tr.Threads[i].Name
	}
	return names
}
