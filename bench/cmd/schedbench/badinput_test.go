package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput checks that every mistake on the command line, and in the inputs it names, is
// one line on stderr naming the mistake, exit status 2, nothing on stdout, and nothing
// written: each run case also asks for -o into a directory that must not appear.
// seq returns "lo,lo+1,…,hi".
func seq(lo, hi int) string {
	var b strings.Builder
	for i := lo; i <= hi; i++ {
		if i > lo {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wl := "workloads/mixed.wl"
	cases := []struct {
		name string
		args []string
		want string // a substring of the one line on stderr
	}{
		{"no command", nil, "usage: schedbench <command>"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"flag before command", []string{"-q", "run", wl}, "flag -q before a command"},
		{"help for unknown command", []string{"help", "nosuch"}, `unknown command "nosuch"`},
		{"unknown flag", []string{"run", "-bogus", wl}, "flag provided but not defined: -bogus"},
		{"unknown flag of explain", []string{"explain", "-reps", "2", wl}, "flag provided but not defined: -reps"},
		{"no workload", []string{"run"}, "no workload file given"},
		{"two workloads", []string{"run", wl, wl}, "one workload at a time"},
		{"duration without a unit", []string{"run", wl, "-until", "2"}, `invalid value "2" for flag -until: a duration needs a unit: 2s, 2ms, 2us or 2ns`},
		{"not a duration", []string{"explain", "-at", "soon", wl}, `invalid value "soon" for flag -at: want a duration: a number and a unit, such as 2s, 500ms`},
		{"missing workload file", []string{"run", "testdata/nosuch.wl"}, "testdata/nosuch.wl: no such workload file"},
		{"workload syntax error", []string{"run", "testdata/bad-syntax.wl"}, "testdata/bad-syntax.wl:2:"},
		{"workload JSON error", []string{"run", "testdata/bad.json"}, "testdata/bad.json:2:3: threads[0]: nice 99 outside -20..20"},
		{"malformed ftrace workload", []string{"run", "testdata/bad.ftrace"}, "testdata/bad.ftrace:1: cpu: no [CPU] column"},
		{"unknown policy", []string{"run", "-policy", "linux", wl}, `unknown policy "linux": presets:`},
		{"unknown ule preset", []string{"run", "-policy", "ule:bogus", wl}, `unknown ule preset "bogus"`},
		{"unknown cfs version", []string{"run", "-policy", "cfs:v9.9", wl}, `unknown cfs preset "v9.9"`},
		{"unknown 4bsd preset", []string{"run", "-policy", "4bsd:13", wl}, `unknown bsd4 preset "13"`},
		{"policy listed twice", []string{"run", "-policy", "ule,ule:main", wl}, "policy ule-main is listed twice"},
		{"empty policy list", []string{"run", "-policy", "", wl}, "-policy is empty"},
		{"empty policy in list", []string{"run", "-policy", "ule,,cfs", wl}, `unknown policy ""`},
		{"malformed topology", []string{"run", "-topology", "cpu:0", wl}, "-topology: topology: parse"},
		{"topology not canonical", []string{"run", "-topology", "core:4  cpu:2", wl}, "-topology: topology: parse"},
		{"unknown machine", []string{"run", "-topology", "cray", wl}, `-topology "cray": not a file, a machine`},
		{"empty topology", []string{"run", "-topology", "", wl}, "-topology is empty"},
		{"malformed topology file", []string{"run", "-topology", "testdata/bad-topology.json", wl}, "-topology testdata/bad-topology.json:"},
		{"zero until", []string{"run", "-until", "0s", wl}, "-until 0s: want a positive duration"},
		{"negative until", []string{"run", "-until", "-1s", wl}, "-until -1s: want a positive duration"},
		{"until not a duration", []string{"run", "-until", "soon", wl}, `invalid value "soon" for flag -until`},
		{"negative seed", []string{"run", "-seed", "-1", wl}, `invalid value "-1" for flag -seed`},
		{"zero reps", []string{"run", "-reps", "0", wl}, "-reps 0: want 1..10000"},
		{"negative parallel", []string{"run", "-parallel", "-1", wl}, "-parallel -1: want 0..256"},
		{"unknown format", []string{"run", "-format", "xml", wl}, `-format "xml": want text, csv or json`},
		{"hz too low", []string{"run", "-hz", "1", wl}, "-hz 1: want 2..100000"},
		{"stathz above hz", []string{"run", "-hz", "100", "-stathz", "127", wl}, "-stathz 127: want 1..hz (100)"},
		{"zero zoom", []string{"run", "-zoom", "0s", wl}, "-zoom 0s: want a positive duration"},
		{"-o is a file", []string{"run", "-o", notDir, wl}, "exists and is not a directory"},
		{"thread pinned off the machine", []string{"run", "-topology", "cpu:2", "testdata/pinned.wl"}, "ule-main on cpu:2:"},
		{"groups under ULE without -flatten", []string{"run", "-policy", "cfs,ule", "testdata/groups.wl"}, "no group scheduling in ULE (group 1) (-flatten runs"},
		{"explain with two policies", []string{"explain", "-policy", "ule,cfs", wl}, "explain takes one policy, got 2"},
		{"explain on a CPU off the machine", []string{"explain", "-cpu", "9", wl}, "-cpu 9: the topology cpu:2 has CPUs 0..1"},
		{"explain -cpu not a number", []string{"explain", "-cpu", "one", wl}, `-cpu "one": want a CPU number`},
		{"explain -at with -from", []string{"explain", "-at", "1ms", "-from", "2ms", wl}, "-at cannot be combined with -from or -to"},
		{"explain -to before -from", []string{"explain", "-from", "2ms", "-to", "1ms", wl}, "-to 1ms is before -from 2ms"},
		{"explain unknown thread", []string{"explain", "-until", "10ms", "-thread", "nosuch", wl}, `-thread "nosuch": no thread of that name`},
		{"explain negative -n", []string{"explain", "-n", "-1", wl}, "-n -1: want 0 or more"},
		{"trace unknown format", []string{"trace", "-format", "perfetto", wl}, `-format "perfetto": want chrome, ftrace, ktr or text`},
		{"trace explanations in JSON", []string{"trace", "-explain", wl}, "-explain needs -format text"},
		{"trace two policies", []string{"trace", "-policy", "ule,cfs", wl}, "trace takes one policy, got 2"},
		{"trace -o a directory", []string{"trace", "-o", dir, wl}, "is a directory; give a file name"},
		{"trace -o in a missing directory", []string{"trace", "-o", filepath.Join(dir, "no", "t.json"), wl}, "no directory"},
		{"run -o below a file", []string{"run", "-o", filepath.Join(notDir, "out"), wl}, "-o " + filepath.Join(notDir, "out") + ": " + notDir + " is not a directory"},
		{"seeds -o a file", []string{"seeds", "-o", notDir, "000"}, "exists and is not a directory"},
		{"sweep -o in a missing directory", []string{"sweep", "-o", filepath.Join(dir, "no", "r.jsonl"), "seed000-nice"}, "no directory"},
		{"sweep -o a directory", []string{"sweep", "-o", dir, "seed000-nice"}, "is a directory; give a file name"},
		{"seeds unknown scenario", []string{"seeds", "seed999"}, `no scenario "seed999"`},
		{"seeds negative reps", []string{"seeds", "-reps", "-1"}, "-reps -1: want 0..10000"},
		{"seeds unknown flag after the names", []string{"seeds", "000", "-bogus"}, "flag provided but not defined: -bogus"},
		{"sweep impossible shard", []string{"sweep", "-shard", "3/2", "seed000-nice"}, "-shard 3/2: shard k of n needs 0 <= k < n"},
		{"sweep shard not k/n", []string{"sweep", "-shard", "half", "seed000-nice"}, `-shard "half": want k/n`},
		{"sweep shard of zero", []string{"sweep", "-shard", "0/0", "seed000-nice"}, "-shard 0/0: shard k of n needs 0 <= k < n"},
		{"sweep no scenario", []string{"sweep"}, "want one scenario, got 0 arguments"},
		{"sweep unknown scenario", []string{"sweep", "nosuch"}, "nosuch"},
		{"sweep grid of an unknown parameter", []string{"sweep", "-grid", "bogus=1,2", "seed000-nice"}, "bogus"},
		{"sweep grid not a list", []string{"sweep", "-grid", "nice", "seed000-nice"}, "want NAME=V1,V2"},
		{"sweep grid value not a number", []string{"sweep", "-grid", "nice=1,x", "seed000-nice"}, `nice: "x" is not a number`},
		{"sweep set out of range", []string{"sweep", "-set", "nice=99", "seed000-nice"}, "nice"},
		{"sweep set twice", []string{"sweep", "-set", "nice=1", "-set", "nice=2", "seed000-nice"}, "nice is set twice"},
		{"merge without results", []string{"merge", "seed000-nice"}, "want a scenario and at least one results file"},
		{"merge missing file", []string{"merge", "seed000-nice", "testdata/nosuch.jsonl"}, "testdata/nosuch.jsonl: no such file or directory"},
		{"merge file that is not results", []string{"merge", "seed000-nice", "workloads/mixed.wl"}, "workloads/mixed.wl:"},
		{"host on another topology", []string{"host", "-topology", "cpu:4", wl}, "-topology cpu:4: the host runs on this machine"},
		{"host beyond the runner's limit", []string{"host", "-until", "1000h", wl}, "the host runner's limit is"},
		{"host -no-model with -policy", []string{"host", "-no-model", "-policy", "ule", wl}, "-no-model and -policy exclude each other"},
		{"host zero reps", []string{"host", "-reps", "0", wl}, "-reps 0: want 1..1000"},
		{"host unknown policy", []string{"host", "-policy", "windows", wl}, `unknown policy "windows"`},
		{"stat with empty standard input", []string{"stat"}, "<stdin>: 0 values; a data set needs at least"},
		{"stat -mmtests without files", []string{"stat", "-mmtests"}, "give at least two files"},
		{"stat confidence not in the table", []string{"stat", "-c", "97", "testdata/stat/a.txt"}, "-c 97: want one of"},
		{"stat width 1", []string{"stat", "-w", "1", "testdata/stat/a.txt"}, "-w 1: want 0 or 2..10000"},
		{"stat column 0", []string{"stat", "-C", "0", "testdata/stat/a.txt"}, "-C 0: the column number must be positive"},
		{"stat missing file", []string{"stat", "testdata/stat/nosuch.txt"}, "testdata/stat/nosuch.txt: no such file or directory"},
		{"stat invalid data", []string{"stat", "testdata/stat/bad.txt"}, `testdata/stat/bad.txt:1: invalid data "abc"`},
		{"stat too few values", []string{"stat", "testdata/stat/short.txt"}, "2 values; a data set needs at least 3"},
		{"stat too many files", []string{"stat", "testdata/stat/a.txt", "testdata/stat/a.txt", "testdata/stat/a.txt", "testdata/stat/a.txt", "testdata/stat/a.txt", "testdata/stat/a.txt", "testdata/stat/a.txt", "testdata/stat/a.txt"}, "8 data files; ministat compares at most 7"},
		{"stat -higher without -mmtests", []string{"stat", "-higher", "testdata/stat/a.txt"}, "need -mmtests"},
		{"stat -mmtests-version without -mmtests", []string{"stat", "-mmtests-version", "2022", "testdata/stat/a.txt"}, "need -mmtests"},
		{"stat -mmtests-version 2024", []string{"stat", "-mmtests", "-mmtests-version", "2024", "testdata/stat/a.txt", "testdata/stat/b.txt"}, "-mmtests-version 2024: want 2022 or 2026"},
		{"stat -summary unknown", []string{"stat", "-mmtests", "-summary", "Subselection", "testdata/stat/a.txt", "testdata/stat/b.txt"}, "-summary Subselection: want Multiops"},
		{"stat -summary new in 2026", []string{"stat", "-mmtests", "-mmtests-version", "2022", "-summary", "normalisedops", "testdata/stat/a.txt", "testdata/stat/b.txt"}, "mmtests 2022 has no such summary"},
		{"stat -mmtests with one run", []string{"stat", "-mmtests", "testdata/stat/a.txt"}, "give at least two files"},
		// Bounds of the work (bounds.go) and of the memory (memory.go), before any work.
		{"until beyond a day", []string{"run", "-until", "25h", wl}, "-until 25h0m0s: at most 24h0m0s"},
		{"too many clock interrupts", []string{"run", "-reps", "1000", "-until", "24h", wl}, "clock interrupts to simulate; at most 1e+10"},
		{"reps beyond the bound", []string{"run", "-reps", "10001", wl}, "-reps 10001: want 1..10000"},
		{"parallel beyond the bound", []string{"run", "-parallel", "257", wl}, "-parallel 257: want 0..256"},
		{"threads beyond the memory budget", []string{"run", "-max-memory", "64MiB", "testdata/many.wl"}, "need about"},
		{"memory budget below the runtime's", []string{"run", "-max-memory", "1MiB", wl}, "-max-memory 1MiB: want 0 (no limit) or at least 32MiB"},
		{"memory budget not a size", []string{"run", "-max-memory", "lots", wl}, `-max-memory "lots"`},
		{"workload file beyond the budget", []string{"run", "-max-memory", "32MiB", "/dev/zero"}, "/dev/zero: more than 512KiB, the share of -max-memory"},
		{"empty workload", []string{"run", "testdata/empty.wl"}, "the workload starts no thread"},
		{"CR-only workload error at its line", []string{"run", "testdata/cr-only-bad.wl"}, "testdata/cr-only-bad.wl:3:2"},
		{"explain negative -at", []string{"explain", "-at", "-5ms", wl}, "-at -5ms: want a time at or after 0"},
		{"sweep empty shard", []string{"sweep", "-shard", "", "seed000-nice"}, `-shard "": want k/n`},
		{"sweep set and grid of one parameter", []string{"sweep", "-set", "nice=1", "-grid", "nice=0,5", "seed000-nice"}, "nice is both fixed by -set and swept by -grid"},
		{"sweep grid value twice", []string{"sweep", "-grid", "nice=1,2,1", "seed000-nice"}, "nice: value 3, 1, is listed twice"},
		{"sweep grid too large", []string{"sweep", "-grid", "nice=" + seq(0, 1000), "seed000-nice"}, "-grid nice: 1001 values; at most 1000"},
		{"sweep cells beyond the bound", []string{"sweep", "-reps", "10000", "-grid", "nice=0,1,2,3,4,5,6,7,8,9,10", "seed000-nice"}, "cells (grid points"},
		{"sweep reps beyond the bound", []string{"sweep", "-reps", "10001", "seed000-nice"}, "-reps 10001: want 0..10000"},
		{"explain -state of a policy without a snapshot", []string{"explain", "-state", "-policy", "toy:rr", wl}, "-state: toy-rr has no snapshot (ule, 4bsd and cfs have)"},
		{"top of the toy policy", []string{"top", "-policy", "toy:rr", wl}, "toy-rr: top shows the columns of FreeBSD's top for ule and 4bsd, of procps' top for cfs"},
		{"top every 0", []string{"top", "-every", "0s", wl}, "-every 0s: want a duration above 0"},
		{"top of two policies", []string{"top", "-policy", "ule,4bsd", wl}, "top takes one policy, got 2"},
		{"top with too many screens", []string{"top", "-every", "1ms", "-until", "1h", wl}, "screens; at most 10000"},
		// A million compiler processes, forked one at a time: the simulator keeps every one's
		// statistics until the cell ends, ~1 GiB a cell; refused before the first cell runs.
		{"sweep forks beyond the memory budget", []string{"sweep", "-parallel", "2", "-set", "jobs=1e6", "seed000-buildkernel"}, "cell 0 (blocks_per_s=255 cc_blocks_per_s=13 cc_off_us=4559.345 chain=1 cpus=8 ctf_ms=1.276 echo=1 hog_idle=0 hog_nice=0 hogs=0 j=8 job_ms=31.61432 jobs=1e+06 make_ms=0.212 mod_hdrs=4 mod_lanes=8 mod_objs=2 modules=120 off_us=709.109 one_make=1 out_us=10 sh_ms=1.697 smt=1 step_ms=1.276 submakes=1 vfork=1) starts 3000009 threads; 2 cell(s) at a time need about 6.147GiB of memory; -max-memory is 2GiB"},
		{"sweep forks beyond a smaller budget", []string{"sweep", "-parallel", "1", "-max-memory", "512MiB", "-set", "jobs=1e6", "seed000-buildkernel"}, "-max-memory is 512MiB"},
		{"merge null metric", []string{"merge", "seed000-nice", "testdata/null-metric.jsonl"}, "testdata/null-metric.jsonl: scenario: line 1: metric 0 is null"},
		{"stat width beyond the bound", []string{"stat", "-w", "1000000000", "testdata/stat/a.txt"}, "-w 1000000000: want 0 or 2..10000"},
		{"stat input beyond the budget", []string{"stat", "-max-memory", "32MiB", "/dev/zero"}, "/dev/zero: more than 2MiB"},
		{"topology spec of a megabyte", []string{"run", "-topology", strings.Repeat("core:4 ", 150000), wl}, `…" (1050000 bytes)`},
	}
	if len(cases) < 30 {
		t.Fatalf("%d cases; the issue asks for at least 30", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := tc.args
			if len(args) > 0 && args[0] == "run" && !strings.Contains(strings.Join(args, " "), " -o ") {
				args = append([]string{"run", "-o", out}, args[1:]...)
			}
			stdout, stderr, code := runCLI(t, args...)
			if code != exitUsage {
				t.Errorf("status %d, want %d (stderr %q)", code, exitUsage, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr %q, want exactly one line", stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("-o %s exists after a usage error (%v)", out, err)
			}
		})
	}
}
