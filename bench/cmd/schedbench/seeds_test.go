package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeedsGolden checks one scenario's table byte for byte (seed000-nice: two hogs, the
// smallest), and the fidelity table of every scenario by its shape: the numbers of the other
// scenarios belong to bench/scenario, whose tests check them.
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
	if !strings.HasPrefix(lines[0], "scenario ") || !strings.Contains(lines[0], " verdict") {
		t.Errorf("fidelity table header %q", lines[0])
	}
	ss, err := pickScenarios(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		n := 0
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, s.Name+" ") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("the fidelity table has no row of %s", s.Name)
		}
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
