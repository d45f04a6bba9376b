//go:build linux

package trace

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// pipeWorkload is the shell pipeline the recording tests trace: seq writes into a pipe that
// cat reads, so each wakes the other.
const pipeWorkload = "seq 1 30000 | cat > /dev/null"

// tracefs returns the tracefs mount, mounting it if needed (and unmounting it at the end of
// the test), or skips the test.
func tracefs(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("recording a kernel trace needs root")
	}
	const dir = "/sys/kernel/tracing"
	if _, err := os.Stat(filepath.Join(dir, "instances")); err == nil {
		return dir
	}
	if err := unix.Mount("nodev", dir, "tracefs", 0, ""); err != nil {
		t.Skipf("tracefs is not mounted at %s and mounting it failed: %v", dir, err)
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, 0) })
	return dir
}

// instance makes a private tracefs instance with the scheduler events enabled and removes it
// at the end of the test.
func instance(t *testing.T) (dir, name string) {
	t.Helper()
	root := tracefs(t)
	name = fmt.Sprintf("schedkit-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	dir = filepath.Join(root, "instances", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a tracefs instance: %v", err)
	}
	// A new instance traces at once: stop it until the test starts it.
	if err := os.WriteFile(filepath.Join(dir, "tracing_on"), []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.WriteFile(filepath.Join(dir, "tracing_on"), []byte("0"), 0o644)
		_ = os.Remove(dir) // rmdir; trace-cmd extract may have removed it already
	})
	for _, ev := range []string{"sched_switch", "sched_wakeup", "sched_waking", "sched_wakeup_new",
		"sched_migrate_task", "sched_process_fork", "sched_process_exit"} {
		if err := os.WriteFile(filepath.Join(dir, "events", "sched", ev, "enable"), []byte("1"), 0o644); err != nil {
			t.Skipf("cannot enable sched:%s: %v", ev, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "buffer_size_kb"), []byte("4096"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, name
}

// checkPipeImport checks that an import of a trace of pipeWorkload found seq and cat, each
// with CPU time, and a pipe from one to the other.
func checkPipeImport(t *testing.T, im *Imported) {
	t.Helper()
	if err := pipeImported(im); err != nil {
		t.Fatal(err)
	}
	if im.Warned > 0 {
		t.Logf("%d warnings, first: %v", im.Warned, im.Warnings[0])
	}
}

// pipeImported reports what is missing from an import of a trace of pipeWorkload: seq and cat
// among its tasks, and a pipe between them.
func pipeImported(im *Imported) error {
	var seq, cat []string
	for _, ts := range im.Tasks {
		switch ts.Comm {
		case "seq":
			seq = append(seq, ts.Name)
		case "cat":
			cat = append(cat, ts.Name)
		}
	}
	if len(seq) == 0 || len(cat) == 0 {
		return fmt.Errorf("no seq or cat among the %d imported tasks", len(im.Tasks))
	}
	for _, p := range im.Workload.Pipes {
		for _, s := range seq {
			for _, c := range cat {
				if p.Name == "p-"+s+"-"+c || p.Name == "p-"+c+"-"+s {
					return nil
				}
			}
		}
	}
	return fmt.Errorf("no pipe between seq %v and cat %v among %d pipes", seq, cat, len(im.Workload.Pipes))
}

// TestRecordTracefs records the kernel's scheduler events for a shell pipeline in a private
// tracefs instance, reads the instance's trace file and imports it; then, where trace-cmd is
// installed, extracts the same buffer and imports `trace-cmd report -N -t`.
func TestRecordTracefs(t *testing.T) {
	dir, name := instance(t)
	on := filepath.Join(dir, "tracing_on")
	// A real recording on a busy machine can come out without the pipeline's events under
	// their names (seen once, under -race beside other test binaries: 11 tasks, no seq or
	// cat); record it again, up to three times, before calling the import wrong.
	var im *Imported
	for attempt := 1; ; attempt++ {
		if err := os.WriteFile(filepath.Join(dir, "trace"), nil, 0o644); err != nil {
			t.Fatal(err) // truncating the trace file clears the instance's buffer
		}
		if err := os.WriteFile(on, []byte("1"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("sh", "-c", pipeWorkload).CombinedOutput()
		if err2 := os.WriteFile(on, []byte("0"), 0o644); err2 != nil {
			t.Fatal(err2)
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", pipeWorkload, err, out)
		}
		text, err := os.ReadFile(filepath.Join(dir, "trace"))
		if err != nil {
			t.Fatal(err)
		}
		im, err = ReadFtrace(bytes.NewReader(text), "trace", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tracefs, attempt %d: %d lines, %d events, %d tasks", attempt, bytes.Count(text, []byte("\n")), im.Events, len(im.Tasks))
		if err := pipeImported(im); err == nil || attempt == 3 {
			break
		} else {
			t.Logf("attempt %d: %v; recording again", attempt, err)
		}
	}
	checkPipeImport(t, im)

	t.Run("trace-cmd", func(t *testing.T) {
		if _, err := exec.LookPath("trace-cmd"); err != nil {
			t.Skip("trace-cmd is not installed (apt-get install trace-cmd)")
		}
		dat := filepath.Join(t.TempDir(), "trace.dat")
		if out, err := exec.Command("trace-cmd", "extract", "-B", name, "-o", dat).CombinedOutput(); err != nil {
			t.Fatalf("trace-cmd extract: %v\n%s", err, out)
		}
		report, err := exec.Command("trace-cmd", "report", "-N", "-t", "-i", dat).Output()
		if err != nil {
			t.Fatalf("trace-cmd report: %v", err)
		}
		im, err := ReadFtrace(bytes.NewReader(report), "report", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkPipeImport(t, im)
	})
}

// TestRecordPerf records the pipeline with perf sched record and imports perf sched script.
func TestRecordPerf(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("perf sched record needs root")
	}
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf is not installed (apt-get install linux-perf)")
	}
	data := filepath.Join(t.TempDir(), "perf.data")
	if out, err := exec.Command("perf", "sched", "record", "-o", data, "--", "sh", "-c", pipeWorkload).CombinedOutput(); err != nil {
		t.Skipf("perf sched record does not work here: %v\n%s", err, out)
	}
	script, err := exec.Command("perf", "sched", "script", "-i", data).Output()
	if err != nil {
		t.Fatalf("perf sched script: %v", err)
	}
	im, err := ReadFtrace(bytes.NewReader(script), "perf sched script", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkPipeImport(t, im)
}

// TestStartRecording records the pipeline through a Recording (the instance, the per-CPU
// readers, the merge), imports what WriteTo wrote, and checks that Close leaves no instance
// and no temporary file behind.
func TestStartRecording(t *testing.T) {
	root := tracefs(t)
	var im *Imported
	var text []byte
	for attempt := 1; ; attempt++ {
		rec, err := StartRecording(&RecordOptions{Tracefs: root, BufferKB: 4096})
		if err != nil {
			t.Fatal(err)
		}
		inst, tmp := rec.Instance(), rec.tmp
		if _, err := os.Stat(inst); err != nil {
			t.Fatalf("no instance: %v", err)
		}
		out, err := exec.Command("sh", "-c", pipeWorkload).CombinedOutput()
		if err != nil {
			rec.Close()
			t.Fatalf("%s: %v\n%s", pipeWorkload, err, out)
		}
		if err := rec.Stop(); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		stats, err := rec.WriteTo(&buf, pipeWorkload)
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{inst, tmp} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s is left after Close: %v", p, err)
			}
		}
		text = buf.Bytes()
		if !bytes.HasPrefix(text, []byte("# tracer: nop\n")) || stats.Events == 0 || stats.CPUs == 0 {
			t.Fatalf("%d events on %d CPUs; trace starts %q", stats.Events, stats.CPUs, text[:min(len(text), 80)])
		}
		im, err = ReadFtrace(bytes.NewReader(text), "recording", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %d events on %d CPUs, %d lost, %d tasks", attempt, stats.Events, stats.CPUs, stats.Lost, len(im.Tasks))
		if pipeImported(im) == nil || attempt == 3 {
			break
		}
	}
	checkPipeImport(t, im)
	// The merge keeps each CPU's order and puts the CPUs' lines in time order.
	var last int64
	for i, l := range strings.Split(string(text), "\n") {
		ev, _, ok, err := parseHeader(l)
		if err != nil || !ok {
			continue
		}
		if ev.ts < last {
			t.Fatalf("line %d goes back in time: %s", i+1, l)
		}
		last = ev.ts
	}
}

// TestRecordingSweepsLeftovers: an instance named after a recording whose process is gone (one
// killed outright) is removed by the next recording; one of a live process is not.
func TestRecordingSweepsLeftovers(t *testing.T) {
	root := tracefs(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(root, "instances", recordPrefix+strconv.Itoa(gone.Process.Pid))
	live := filepath.Join(root, "instances", recordPrefix+"1") // init runs
	for _, d := range []string{dead, live} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Skipf("cannot create a tracefs instance: %v", err)
		}
		t.Cleanup(func() { os.Remove(d) })
	}
	rec, err := StartRecording(&RecordOptions{Tracefs: root, BufferKB: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead recording's instance is left: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the live process's instance was removed: %v", err)
	}
}
