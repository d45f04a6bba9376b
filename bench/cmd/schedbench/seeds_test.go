package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// TestSeedsGolden checks one scenario's summary and table byte for byte (seed000-nice: two
// hogs, the smallest), and the summary of every scenario by its shape: one line per claim,
// under 120 columns, and no per-scenario table without -v. The numbers of the other scenarios
// belong to bench/scenario, whose tests check them.
func TestSeedsGolden(t *testing.T) {
	out, errs, code := runCLI(t, "seeds", "-small", "seed000-nice")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	checkGolden(t, "seeds-nice-small.golden", []byte(out))

	out, errs, code = runCLI(t, "seeds", "-small")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "seed  claim ") || !strings.HasSuffix(lines[0], " verdict") {
		t.Errorf("summary header %q", lines[0])
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 120 {
			t.Errorf("summary line of %d columns: %q", n, l)
		}
	}
	ss, err := pickScenarios(nil)
	if err != nil {
		t.Fatal(err)
	}
	claims := 0
	for _, s := range ss {
		for _, c := range s.Claims {
			claims++
			if !strings.Contains(out, "  "+c.Text+"  ") {
				t.Errorf("the summary has no line for %s's claim %q", s.Name, c.Text)
			}
		}
		if strings.Contains(out, s.Name+": "+s.Title) {
			t.Errorf("the summary prints %s's table without -v", s.Name)
		}
	}
	if claims < 20 || claims > 34 {
		t.Errorf("%d claims; want about 20-30 lines", claims)
	}
	verbose, errs, code := runCLI(t, "seeds", "-small", "-v", "003")
	if code != exitOK || errs != "" {
		t.Fatalf("-v: status %d, stderr %q", code, errs)
	}
	if !strings.HasPrefix(verbose, "seed  claim ") || !strings.Contains(verbose, "seed003-posix: ") || !strings.Contains(verbose, "seed003-buildworld: ") {
		t.Errorf("seeds -v 003: want the summary, then both tables; got\n%s", verbose)
	}
}

// A name that is only the beginning of several scenarios is an error listing them, not a
// silent choice; a unique beginning, a full name and a seed number choose.
func TestSeedsNames(t *testing.T) {
	_, errs, code := runCLI(t, "seeds", "-small", "seed000")
	if code != exitUsage || !strings.Contains(errs, "seed000-buildkernel, seed000-nice, seed000-pipeline") || !strings.Contains(errs, "000 names all") {
		t.Errorf("seeds seed000: status %d, stderr %q; want a usage error listing the three", code, errs)
	}
	for _, args := range [][]string{{"seed000-ni"}, {"seed000-nice"}} {
		out, errs, code := runCLI(t, append([]string{"seeds", "-small", "-q"}, args...)...)
		if code != exitOK || !strings.Contains(out, "seed000-nice: ") || strings.Contains(out, "seed000-pipeline: ") {
			t.Errorf("seeds %v: status %d, stderr %q, output\n%s", args, code, errs, out)
		}
	}
}

// seeds -params lists a scenario's parameters with default, unit and range; an unknown
// parameter's error lists the valid ones.
func TestSeedsParams(t *testing.T) {
	out, errs, code := runCLI(t, "seeds", "-params", "seed001-kargl")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	for _, want := range []string{"parameter  default  unit", "iter_ms", "0.1..60000", "n ", "1..64, whole", "swept by default: iter_ms="} {
		if !strings.Contains(out, want) {
			t.Errorf("seeds -params seed001-kargl lacks %q:\n%s", want, out)
		}
	}
	_, errs, code = runCLI(t, "sweep", "-set", "nicee=3", "seed000-nice")
	if code != exitUsage || !strings.Contains(errs, `unknown parameter "nicee"`) || !strings.Contains(errs, "nice, seconds") {
		t.Errorf("an unknown parameter: status %d, stderr %q; want the valid ones listed", code, errs)
	}
	if _, errs, code = runCLI(t, "seeds", "-params"); code != exitUsage {
		t.Errorf("seeds -params without a name: status %d, stderr %q", code, errs)
	}
}

func TestSeedsArtefacts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	out, errs, code := runCLI(t, "seeds", "-small", "-o", dir, "000")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	for _, name := range []string{"seeds.txt", "index.html", "seed000-nice.txt", "seed000-nice.jsonl", "seed000-nice-point0.svg", "seed000-pipeline.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("-o lacks %s: %v", name, err)
		}
	}
	seeds, _ := os.ReadFile(filepath.Join(dir, "seeds.txt"))
	if string(seeds) != out {
		t.Error("seeds.txt differs from stdout")
	}
}

// TestShardsMerge runs a sweep whole and as three shards: merging the shards' JSON lines,
// given in any order, prints the whole sweep's table byte for byte.
func TestShardsMerge(t *testing.T) {
	plan := []string{"-small", "-reps", "2", "-grid", "nice=10,20", "-set", "seconds=2"}
	whole, errs, code := runCLI(t, append(append([]string{"sweep", "-q"}, plan...), "seed000-nice")...)
	if code != exitOK {
		t.Fatalf("whole sweep: status %d, stderr %q", code, errs)
	}
	dir := t.TempDir()
	var files []string
	for _, k := range []string{"2", "0", "1"} {
		path := filepath.Join(dir, "shard"+k+".jsonl")
		out, errs, code := runCLI(t, append(append([]string{"sweep", "-q", "-shard", k + "/3", "-o", path}, plan...), "seed000-nice")...)
		if code != exitOK || out != "" {
			t.Fatalf("shard %s/3: status %d, stdout %q, stderr %q", k, code, out, errs)
		}
		files = append(files, path)
	}
	merged, errs, code := runCLI(t, append(append(append([]string{"merge"}, plan...), "seed000-nice"), files...)...)
	if code != exitOK {
		t.Fatalf("merge: status %d, stderr %q", code, errs)
	}
	if merged != whole {
		t.Errorf("merged shards:\n%s\nwhole sweep:\n%s", merged, whole)
	}
	// Two of the three shards are not the whole sweep.
	_, errs, code = runCLI(t, append(append(append([]string{"merge"}, plan...), "seed000-nice"), files[:2]...)...)
	if code != exitUsage || !strings.Contains(errs, "missing") && !strings.Contains(errs, "cell") {
		t.Errorf("merge of 2 of 3 shards: status %d, stderr %q; want a usage error naming the missing cell", code, errs)
	}
}

func TestSweepGolden(t *testing.T) {
	out, errs, code := runCLI(t, "sweep", "-small", "-reps", "2", "-set", "seconds=2", "-grid", "nice=0,20", "seed000-nice")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	checkGolden(t, "sweep.golden", []byte(out))
	// -shard 0/1 is the whole sweep, as JSON lines.
	lines, errs, code := runCLI(t, "sweep", "-small", "-reps", "2", "-set", "seconds=2", "-grid", "nice=0,20", "-shard", "0/1", "seed000-nice")
	if code != exitOK || errs != "" {
		t.Fatalf("-shard 0/1: status %d, stderr %q", code, errs)
	}
	checkGolden(t, "sweep-shard.golden", []byte(lines))
}

// TestSeedsInterrupt cancels seeds after the first scenario's last cell, with one worker: the
// summary shows that scenario's claims and not the second's, the status is 1, and stderr counts
// the scenarios and cells finished. The cells of both scenarios share one pool, so the second's
// first cell may have been handed out, and started, before the cancel: the worker takes it as
// soon as it has handed on the first scenario's last result, while the cancel comes after the
// result is received. That cell then finishes and counts (CI's race pass counted it once), so
// the cells finished are the first scenario's or one more; the second scenario does not finish.
func TestSeedsInterrupt(t *testing.T) {
	s, err := scenario.Lookup("seed000-nice")
	if err != nil {
		t.Fatal(err)
	}
	first, err := scenario.NewPlan(s, scenario.Options{Small: true})
	if err != nil {
		t.Fatal(err)
	}
	n := len(first.Cells)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	e := &env{ctx: ctx, stdout: &out, stderr: &errb, afterRun: func(done int) {
		if done == n {
			cancel()
		}
	}}
	code := cli(e, []string{"seeds", "-q", "-small", "-parallel", "1", "seed000-nice", "seed003-posix"})
	if code != exitFailure {
		t.Errorf("status %d, want %d", code, exitFailure)
	}
	want, oneMore := fmt.Sprintf("interrupted: 1 of 2 scenarios finished (%d of ", n), fmt.Sprintf("interrupted: 1 of 2 scenarios finished (%d of ", n+1)
	if !strings.Contains(errb.String(), want) && !strings.Contains(errb.String(), oneMore) {
		t.Errorf("stderr %q, want %q or %q", errb.String(), want, oneMore)
	}
	if !strings.Contains(out.String(), "a nice 0 and a nice 20 hog share about 50:50") || strings.Contains(out.String(), "64 queues keep") {
		t.Errorf("the summary should hold seed000-nice's claims and none of seed003-posix's:\n%s", out.String())
	}
}

// TestSeedsParallelSame: the summary and tables are the same, byte for byte, whatever the
// number of workers the scenarios' cells share.
func TestSeedsParallelSame(t *testing.T) {
	var want string
	for _, p := range []string{"1", "2", "5"} {
		out, errs, code := runCLI(t, "seeds", "-small", "-v", "-parallel", p, "000", "003")
		if code != exitOK || errs != "" {
			t.Fatalf("-parallel %s: status %d, stderr %q", p, code, errs)
		}
		if want == "" {
			want = out
		} else if out != want {
			t.Errorf("-parallel %s: output differs from -parallel 1's", p)
		}
	}
}

// TestSeedsPoolStopsAtAFailure: once a cell fails, no further cell starts, whichever scenario
// it belongs to; the scenario before it finished and is kept, the failing one has its error.
// One worker: the first scenario's four cells, then the second's first, which fails; the cell
// the pool had handed out meanwhile is not run.
func TestSeedsPoolStopsAtAFailure(t *testing.T) {
	var builds atomic.Int32
	toy := func(name string, fail bool) *scenario.Plan {
		s := &scenario.Scenario{
			Name:    name,
			Rows:    []scenario.Row{{Label: "a", Policy: "cfs:v6.5"}},
			Metrics: []scenario.Metric{{Name: "m", Of: func(*sim.Result, *scenario.Setup) float64 { return 1 }}},
			Build: func(scenario.Values, *scenario.Row) (scenario.Setup, error) {
				builds.Add(1)
				if fail {
					return scenario.Setup{}, errors.New("built to fail")
				}
				w := &workload.Workload{Threads: []workload.Thread{{Name: "t", Ops: []workload.Op{workload.RunOp(workload.Fixed(1000))}}}}
				return scenario.Setup{Config: sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, Workload: w, Until: time.Second}, nil
			},
			Reps: 4,
		}
		pl, err := scenario.NewPlan(s, scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	plans := []*scenario.Plan{toy("ok", false), toy("fails", true)}
	results, errs, left, done := runPlansCells(context.Background(), plans, scenario.Options{Workers: 1}, func(int) {})
	if errs[0] != nil || left[0] != 0 || len(results[0]) != 4 || done != 4 {
		t.Errorf("first scenario: error %v, %d cells left, %d done; want all 4 done", errs[0], left[0], done)
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "built to fail") {
		t.Errorf("second scenario's error %v, want its cell's", errs[1])
	}
	if n := builds.Load(); n != 5 {
		t.Errorf("%d cells started, want 5: none after the failing one", n)
	}
}
