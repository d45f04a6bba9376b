// Command validate records real programs' scheduling on this machine's kernel, replays each
// trace under the policy preset nearest the kernel (host.NearestPolicy of its release, such as
// cfs:v6.18 for 6.18.44, unless -policy names another), and prints how the replay compares
// with the trace: the table README's trace section shows (issue 26).
//
//	sudo go run ./bench/trace/validate [-o DIR] [-policy PRESET] [-also ule:main,bsd4:main]
//
// It needs root (a tracefs instance, as schedbench record) and hackbench (Debian's rt-tests),
// perf (linux-perf), tar and gzip. The workloads: hackbench -g 2 -l 200 (processes talking
// through sockets), perf bench sched pipe -l 20000 (two processes ping-ponging through a pipe),
// tar cf - /usr/share | gzip -c >/dev/null (the pipeline of issue 26), and a Go program of 2000
// goroutines passing tokens round rings and computing (this command itself, re-executed, as the
// kernel sees it: its OS threads). Each is recorded system-wide, with whatever else runs on the
// machine, imported with bench/trace's defaults and replayed on a machine of the trace's CPUs
// at the kernel's CONFIG_HZ on the machine profile -profile names (ideal by default, as replay's:
// no cost between a decision and its effect; under a profile with costs, such as ci, the import
// shortens each recorded run by the costs the profile charges inside it, see
// trace.ImportOptions.Costs). For the workload's own tasks (the recorded command and what it
// forked) it reports:
//
//   - CPU: the trace's CPU time of the tasks, and how many of them the replay gives within
//     ±5 % of it;
//   - span: from the first of the tasks' start to the last one's end, in the trace and in the
//     replay, and their ratio (the goal: within ±10 %);
//   - latency: the mean wake-up-to-run latency over the tasks' wake-ups, in the trace and in the
//     replay, side by side;
//
// and the machine's load average before and after, since the trace holds the other sessions'
// work too. -o DIR keeps the traces (DIR/NAME.ftrace); -also replays tar | gzip under more
// policies, a row each.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/topology"
)

// goroutinesEnv makes the command the Go workload instead.
const goroutinesEnv = "SCHEDKIT_VALIDATE_GOROUTINES"

type workloadSpec struct {
	name, show string
	argv       []string
}

func main() {
	if os.Getenv(goroutinesEnv) != "" {
		goroutines()
		return
	}
	out := flag.String("o", "", "keep the traces in `DIR` (DIR/NAME.ftrace)")
	policy := flag.String("policy", "", "the `preset` the traces are replayed under; empty for the one nearest the recording kernel (host.NearestPolicy)")
	also := flag.String("also", "ule:main,bsd4:main", "more `presets` to replay tar | gzip under, a row each")
	tarDir := flag.String("tar", "/usr/share", "the `directory` tar archives")
	only := flag.String("only", "", "run only the workloads whose names contain this `text`")
	small := flag.Bool("small", false, "small workloads, for the traces bench/trace's tests keep (testdata/recorded)")
	profile := flag.String("profile", "ideal", "the machine `profile` of the replays: ideal (replay's default) or a built-in one such as ci, whose costs replace the recorded ones (trace.ImportOptions.Costs)")
	flag.Parse()
	prof, ok := sim.BuiltinProfile(*profile)
	if !ok {
		fatal(fmt.Errorf("-profile %q: no such built-in profile (have %s)", *profile, strings.Join(sim.BuiltinProfiles(), ", ")))
	}
	replayProfile = prof
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	hbLoops, pipeLoops, rings := "200", "20000", 40
	if *small {
		hbLoops, pipeLoops, rings = "20", "2000", 4
		if *tarDir == "/usr/share" {
			*tarDir = "/usr/share/zoneinfo"
		}
	}
	specs := []workloadSpec{
		{"hackbench", "hackbench -g 2 -l " + hbLoops, []string{"hackbench", "-g", "2", "-l", hbLoops}},
		{"perf-pipe", "perf bench sched pipe -l " + pipeLoops, []string{"perf", "bench", "sched", "pipe", "-l", pipeLoops}},
		{"tar-gzip", "tar cf - " + *tarDir + " | gzip -c >/dev/null", []string{"sh", "-c", "tar cf - " + *tarDir + " 2>/dev/null | gzip -c >/dev/null"}},
		{"goroutines", fmt.Sprintf("Go: %d goroutines in token rings", rings*ringSize), []string{self}},
	}
	goRings = rings
	hz := kernelHz()
	if *policy == "" {
		*policy = host.NearestPolicy(kernelRelease())
	}
	fmt.Printf("kernel %s, %d CPUs, CONFIG_HZ %d; replayed under %s on the %s profile\n", kernelRelease(), runtime.NumCPU(), hz, *policy, prof)
	if quirks := host.NonUpstreamSchedSysctls(); len(quirks) > 0 {
		fmt.Printf("scheduler sysctls upstream Linux does not have (a patched scheduler the models do not contain): %s\n", strings.Join(quirks, ", "))
	}
	fmt.Println()
	fmt.Println("| workload | policy | load avg | events | tasks | CPU trace ms | tasks ±5 % CPU | span trace ms | span replay ms | span % | latency trace µs | latency replay µs |")
	fmt.Println("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range specs {
		if *only != "" && !strings.Contains(s.name, *only) {
			continue
		}
		workloadRows(s, *out, *policy, *also, hz)
	}
}

// workloadRows records workload s (keeping its trace in dir unless dir is ""), replays it under policy
// (and, for tar | gzip, the comma-separated also) and prints a table row per policy.
func workloadRows(s workloadSpec, dir, policy, also string, hz int) {
	if _, err := exec.LookPath(s.argv[0]); err != nil {
		fmt.Printf("| %s | - | - | - | - | - | - | - | - | - | - | - | (%s not installed)\n", s.show, s.argv[0])
		return
	}
	load0 := loadAvg()
	path, pid, err := record(s, dir)
	if err != nil {
		fatal(fmt.Errorf("%s: %v", s.name, err))
	}
	load1 := loadAvg()
	im, err := importTrace(path, hz)
	if err != nil {
		fatal(err)
	}
	if dir == "" {
		os.Remove(path)
	}
	policies := []string{policy}
	if s.name == "tar-gzip" && also != "" {
		policies = append(policies, strings.Split(also, ",")...)
	}
	for _, p := range policies {
		row, err := compare(im, pid, p, hz)
		if err != nil {
			fatal(fmt.Errorf("%s under %s: %v", s.name, p, err))
		}
		fmt.Printf("| %s | %s | %.2f→%.2f | %d | %d | %.1f | %d of %d | %.1f | %.1f | %.1f | %.1f | %.1f |\n", s.show, p, load0, load1,
			im.Events, row.Tasks, ms(row.CPUTrace), row.Within, row.Tasks, ms(row.SpanTrace), ms(row.SpanReplay),
			100*float64(row.SpanReplay)/float64(max(row.SpanTrace, 1)), us(row.LatencyTrace), us(row.LatencyReplay))
	}
}

// record runs s under a tracefs Recording and writes the trace; it returns its path and the
// command's pid.
func record(s workloadSpec, dir string) (string, int, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, s.name+".ftrace")
	rec, err := trace.StartRecording(nil)
	if err != nil {
		return "", 0, err
	}
	defer rec.Close()
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if s.name == "goroutines" {
		cmd.Env = append(os.Environ(), goroutinesEnv+"="+strconv.Itoa(goRings), "GOMAXPROCS="+strconv.Itoa(runtime.NumCPU()))
	}
	runErr := cmd.Run()
	if err := rec.Stop(); err != nil {
		return "", 0, err
	}
	if runErr != nil {
		return "", 0, fmt.Errorf("%s: %v", s.show, runErr)
	}
	f, err := os.Create(path)
	if err != nil {
		return "", 0, err
	}
	bw := bufio.NewWriter(f)
	stats, err := rec.WriteTo(bw, fmt.Sprintf("%s (pid %d)", s.show, cmd.Process.Pid))
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if stats.Lost > 0 {
		fmt.Fprintf(os.Stderr, "validate: %s: %d events lost\n", s.name, stats.Lost)
	}
	return path, cmd.Process.Pid, err
}

// importTrace imports the ftrace text at path; under a profile with costs, each run is
// shortened by what the profile charges at the steps inside it (trace.ImportOptions.Costs), on
// the replay machine of compare.
func importTrace(path string, hz int) (*trace.Imported, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<16)
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(r); err != nil {
			return nil, err
		}
	}
	var o trace.ImportOptions
	var cfg sim.Config
	replayProfile.Apply(&cfg)
	if cfg.Costs != (sim.Costs{}) {
		o.Costs, o.Hz = &cfg.Costs, hz
	}
	return trace.ReadFtrace(r, filepath.Base(path), &o)
}

// compare replays im under policy p and sums the comparison over pid's tree.
func compare(im *trace.Imported, pid int, p string, hz int) (trace.Summary, error) {
	pol, err := presets.New(p)
	if err != nil {
		return trace.Summary{}, err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, im.CPUs, 1), Hz: hz}
	replayProfile.Apply(&cfg)
	c, err := trace.Replay(cfg, pol, im, 0)
	if err != nil {
		return trace.Summary{}, err
	}
	s := c.Summarize(im.Descendants(int64(pid)))
	if s.Tasks == 0 {
		return s, fmt.Errorf("the trace has no task of pid %d's tree", pid)
	}
	return s, nil
}

// replayProfile is the machine profile the replays run on (-profile).
var replayProfile *sim.Profile

// ringSize is the goroutines of a ring; goRings the rings the Go workload runs.
const ringSize = 50

var goRings int

// goroutines is the Go workload: $SCHEDKIT_VALIDATE_GOROUTINES rings of 50 goroutines, each
// passing a token 400 times round its ring with a little computation at each hop.
func goroutines() {
	const size, laps = ringSize, 400
	rings, err := strconv.Atoi(os.Getenv(goroutinesEnv))
	if err != nil || rings <= 0 {
		rings = 40
	}
	var wg sync.WaitGroup
	var sink uint64
	var mu sync.Mutex
	for range rings {
		chans := make([]chan int, size)
		for i := range chans {
			chans[i] = make(chan int)
		}
		for i := range size {
			wg.Add(1)
			go func(in, out chan int, first bool) {
				defer wg.Done()
				var x uint64
				if first {
					out <- 0
				}
				for {
					v, ok := <-in
					if !ok {
						close(out) // the ring ends: pass the close on
						break
					}
					for k := range 2000 {
						x = x*6364136223846793005 + uint64(k)
					}
					if v == laps*size {
						close(out)
						break
					}
					out <- v + 1
				}
				mu.Lock()
				sink += x
				mu.Unlock()
			}(chans[i], chans[(i+1)%size], i == 0)
		}
	}
	wg.Wait()
	fmt.Println(sink)
}

// kernelHz returns the kernel's CONFIG_HZ from /proc/config.gz, or the simulator's default.
func kernelHz() int {
	f, err := os.Open("/proc/config.gz")
	if err != nil {
		return sim.DefaultHz
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return sim.DefaultHz
	}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CONFIG_HZ="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	return sim.DefaultHz
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// loadAvg returns the one-minute load average.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	v, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return v
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }
func us(ns int64) float64 { return float64(ns) / 1e3 }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "validate:", err)
	os.Exit(1)
}
