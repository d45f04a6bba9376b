package trace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A charge is one stretch of CPU time an import charged a task (ImportOptions.onCharge).
type charge struct {
	cpu      int
	key      int64
	from, to int64
}

// chargeLog returns import options that record every charge, and the log.
func chargeLog(o ImportOptions) (*ImportOptions, *[]charge) {
	var log []charge
	o.onCharge = func(cpu int, key int64, from, to int64) {
		log = append(log, charge{cpu, key, from, to})
	}
	return &o, &log
}

// accountingError reports how an import's accounting exceeds the machine, checked against
// the charges it made, or nil: every charge lies within the trace on a CPU it names; each
// CPU's charges never overlap; no task runs longer than the trace; the tasks' CPU time is the
// sum of the charges; and it is at most CPUs × duration.
func accountingError(im *Imported, log []charge) error {
	byCPU := map[int][]charge{}
	var charged int64
	for _, c := range log {
		if c.from >= c.to || c.from < 0 || c.to > im.Duration || c.cpu < 0 || c.cpu >= im.CPUs {
			return fmt.Errorf("charge %+v outside the trace's %d ns on %d CPUs", c, im.Duration, im.CPUs)
		}
		byCPU[c.cpu] = append(byCPU[c.cpu], c)
		charged += c.to - c.from
	}
	for cpu, cs := range byCPU {
		slices.SortFunc(cs, func(a, b charge) int { return int(a.from - b.from) })
		for i := 1; i < len(cs); i++ {
			if cs[i].from < cs[i-1].to {
				return fmt.Errorf("CPU %d runs two tasks at once: %+v and %+v", cpu, cs[i-1], cs[i])
			}
		}
	}
	var total int64
	for _, ts := range append(slices.Clone(im.Tasks), im.Dropped...) {
		if ts.CPUTime < 0 || ts.CPUTime > im.Duration {
			return fmt.Errorf("%s runs %d ns in a trace of %d", ts.Label(), ts.CPUTime, im.Duration)
		}
		total += ts.CPUTime
	}
	if total != charged {
		return fmt.Errorf("the tasks' CPU time is %d ns, the charges add up to %d", total, charged)
	}
	if limit := int64(im.CPUs) * im.Duration; total > limit {
		return fmt.Errorf("the tasks' CPU time %d exceeds %d CPUs × %d ns", total, im.CPUs, im.Duration)
	}
	return nil
}

// randomFtrace writes n lines of tracefs text that a trace with lost events, filtered tasks,
// reused pids and clocks out of step could hold: switches from and to any task on any CPU,
// wake-ups, forks, exits, execs, renames, runtime charges, lost-event and buffer-start markers,
// timestamps that sometimes go back.
func randomFtrace(r *rand.Rand, n int) string {
	var b strings.Builder
	ts := int64(1_000_000_000)
	comm := func(pid int) string {
		if pid == 0 {
			return "swapper/0"
		}
		return []string{"a", "b", "kworker/1:0", "migration/0", "c", "rcu_preempt"}[pid%6]
	}
	pid := func() int { return r.IntN(8) }
	for range n {
		if r.IntN(10) == 0 {
			ts -= int64(r.IntN(2000))
		} else {
			ts += int64(r.IntN(200_000))
		}
		cpu := r.IntN(4)
		ctx := pid()
		head := fmt.Sprintf("%16s-%-5d [%03d] d..2. %5d.%06d: ", comm(ctx), ctx, cpu, ts/1e9, ts%1e9/1e3)
		switch r.IntN(12) {
		case 0, 1, 2, 3:
			prev, next := ctx, pid()
			if r.IntN(4) == 0 {
				prev = pid()
			}
			state := []string{"S", "R", "R+", "D", "X", "Z", "I"}[r.IntN(7)]
			fmt.Fprintf(&b, "%ssched_switch: prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n",
				head, comm(prev), prev, []int{120, 0, 100, 139}[r.IntN(4)], state, comm(next), next)
		case 4, 5:
			ev := []string{"sched_waking", "sched_wakeup", "sched_wakeup_new"}[r.IntN(3)]
			p := pid()
			fmt.Fprintf(&b, "%s%s: comm=%s pid=%d prio=120 target_cpu=%03d\n", head, ev, comm(p), p, r.IntN(4))
		case 6:
			fmt.Fprintf(&b, "%ssched_process_fork: comm=%s pid=%d child_comm=%s child_pid=%d\n", head, comm(ctx), ctx, comm(ctx), pid())
		case 7:
			fmt.Fprintf(&b, "%ssched_process_exit: comm=%s pid=%d prio=120\n", head, comm(ctx), ctx)
		case 8:
			p := pid()
			fmt.Fprintf(&b, "%ssched_stat_runtime: comm=%s pid=%d runtime=%d [ns]\n", head, comm(p), p, r.IntN(3_000_000))
		case 9:
			fmt.Fprintf(&b, "%ssched_process_exec: filename=/bin/x%d pid=%d old_pid=%d\n", head, r.IntN(3), ctx, []int{ctx, pid()}[r.IntN(2)])
		case 10:
			fmt.Fprintf(&b, "%stask_rename: pid=%d oldcomm=%s newcomm=y%d oom_score_adj=0\n", head, ctx, comm(ctx), r.IntN(3))
		case 11:
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "##### CPU %d buffer started ####\n", cpu)
			} else {
				fmt.Fprintf(&b, "CPU:%d [LOST %d EVENTS]\n", cpu, r.IntN(9))
			}
		}
	}
	return b.String()
}

// TestAccountingProperty imports random, inconsistent traces and the real ones in every
// kernel-thread mode and checks that the accounting never exceeds the machine: each CPU's
// runs never overlap, and the CPU time of all tasks is at most CPUs × span.
func TestAccountingProperty(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	var inputs []struct{ name, text string }
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 26))
		inputs = append(inputs, struct{ name, text string }{fmt.Sprintf("random-%d", seed), randomFtrace(r, 20+r.IntN(200))})
	}
	for _, name := range realTraces {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, struct{ name, text string }{name, string(data)})
	}
	imported := 0
	for _, in := range inputs {
		for _, mode := range []KernelMode{KernelCharge, KernelDrop, KernelKeep} {
			for _, summary := range []bool{false, true} {
				o, log := chargeLog(ImportOptions{KernelThreads: mode, Summary: summary})
				im, err := ReadFtrace(strings.NewReader(in.text), in.name, o)
				if err != nil {
					if strings.Contains(err.Error(), "internal error") {
						t.Fatalf("%s: %v", in.name, err)
					}
					continue
				}
				imported++
				if err := accountingError(im, *log); err != nil {
					t.Fatalf("%s, %s, summary %t: %v", in.name, mode, summary, err)
				}
			}
		}
	}
	if imported < len(inputs) {
		t.Errorf("only %d imports of %d inputs × 6 succeeded: the generator makes too many bad traces", imported, len(inputs))
	}
}

// TestAccountingGoTrace checks the same of the Go execution trace in testdata, with goroutines
// and with Ms: Ps are the CPUs.
func TestAccountingGoTrace(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "pipeline.gotrace"))
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []bool{false, true} {
		o, log := chargeLog(ImportOptions{GoThreads: threads})
		im, err := ReadGoTrace(bytes.NewReader(data), "pipeline.gotrace", o)
		if err != nil {
			t.Fatal(err)
		}
		if err := accountingError(im, *log); err != nil {
			t.Errorf("GoThreads %t: %v", threads, err)
		}
	}
}

// TestAccountingLostSwitches: a CPU whose switches are missing (a task the tracer does not
// show switching out, as this VM's sandbox tasks are) never runs two tasks at once: a task it
// runs without a switch to it takes the CPU from then on, the one it had stops there. A task
// whose switch-in the trace lacks gets none of the time before the event that shows it (rcu).
func TestAccountingLostSwitches(t *testing.T) {
	const text = `
     hidden-75    [000] d.h1.     1.001000: sched_stat_runtime: comm=hidden pid=75 runtime=2785 [ns]
        rcu-15    [000] d..2.     1.002000: sched_switch: prev_comm=rcu prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=worker next_pid=74 next_prio=110
        tar-16    [000] d..2.     1.003000: sched_switch: prev_comm=tar prev_pid=16 prev_prio=120 prev_state=D ==> next_comm=hidden next_pid=75 next_prio=110
        tar-16    [001] d..2.     1.003500: sched_waking: comm=rcu pid=15 prio=120 target_cpu=000
        tar-16    [001] d..2.     1.004000: sched_switch: prev_comm=tar prev_pid=16 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
     hidden-75    [000] d..2.     1.005000: sched_waking: comm=rcu pid=15 prio=120 target_cpu=000
`
	o, log := chargeLog(ImportOptions{})
	im, err := ReadFtrace(strings.NewReader(text), "lost.txt", o)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountingError(im, *log); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"hidden-75": 1e6 + 2e6, "rcu-15": 0, "worker-74": 1e6, "tar-16": 0.5e6}
	for _, ts := range im.Tasks {
		if w, ok := want[ts.Label()]; ok && ts.CPUTime != w {
			t.Errorf("%s: CPU time %d, want %d", ts.Label(), ts.CPUTime, w)
		}
	}
	if im.Warned < 3 {
		t.Errorf("%d warnings, want one per missing switch and one for tar on two CPUs: %v", im.Warned, im.Warnings)
	}
}

// TestExitPathPreempted: a task preempted on its exit path (after sched_process_exit) and run
// again is the same task, not a new one runnable since the trace began (the tar of a recorded
// tar | gzip came out twice, the second waiting the whole trace).
func TestExitPathPreempted(t *testing.T) {
	const text = `
     tar-10    [000] d..2.     1.000000: sched_process_exit: comm=tar pid=10 prio=120 group_dead=true
     tar-10    [000] d..2.     1.000100: sched_switch: prev_comm=tar prev_pid=10 prev_prio=120 prev_state=R+ ==> next_comm=gzip next_pid=11 next_prio=120
    gzip-11    [000] d..2.     1.000300: sched_switch: prev_comm=gzip prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=tar next_pid=10 next_prio=120
     tar-10    [000] d..2.     1.000400: sched_waking: comm=gzip pid=11 prio=120 target_cpu=000
     tar-10    [000] d..2.     1.000500: sched_switch: prev_comm=tar prev_pid=10 prev_prio=120 prev_state=X ==> next_comm=gzip next_pid=11 next_prio=120
    gzip-11    [000] d..2.     1.000600: sched_switch: prev_comm=gzip prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
	o, log := chargeLog(ImportOptions{})
	im, err := ReadFtrace(strings.NewReader(text), "exit.txt", o)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountingError(im, *log); err != nil {
		t.Fatal(err)
	}
	var tars int
	for _, ts := range im.Tasks {
		if ts.Comm == "tar" {
			tars++
			if !ts.Exited || ts.CPUTime != 0 || ts.WaitTime != 0 {
				t.Errorf("tar: %+v; want an exited task whose exit path is not charged", ts)
			}
		}
	}
	if tars != 1 || im.Warned != 0 {
		t.Errorf("%d tasks named tar, warnings %v; want one, none", tars, im.Warnings)
	}
	if g := im.Task("gzip-11"); g == nil || g.CPUTime != 0.3e6 {
		t.Errorf("gzip: %+v; want 0.3 ms of CPU (0.1-0.3 and 0.5-0.6)", g)
	}
}
