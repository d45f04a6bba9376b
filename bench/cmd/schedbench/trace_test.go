package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/trace"
)

func TestTraceGolden(t *testing.T) {
	for _, format := range []string{"chrome", "ftrace", "text"} {
		t.Run(format, func(t *testing.T) {
			args := []string{"trace", "-format", format, "-policy", "cfs:v7.1", "-until", "4ms", "workloads/mixed.wl"}
			out, errs, code := runCLI(t, args...)
			if code != exitOK || errs != "" {
				t.Fatalf("status %d, stderr %q", code, errs)
			}
			checkGolden(t, "trace-"+format+".golden", []byte(out))
		})
	}
}

// TestTraceReadBack writes a run's traces into a file with -o and reads them back: the Chrome
// JSON must parse and name every thread, and the ftrace text must import as a workload with
// the run's threads.
func TestTraceReadBack(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"chrome", "ftrace"} {
		path := filepath.Join(dir, "t."+format)
		if out, errs, code := runCLI(t, "trace", "-format", format, "-o", path, "-policy", "ule", "-until", "200ms", "workloads/mixed.wl"); code != exitOK || out != "" {
			t.Fatalf("-format %s: status %d, stdout %q, stderr %q", format, code, out, errs)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch format {
		case "chrome":
			var doc struct {
				TraceEvents []map[string]any `json:"traceEvents"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatalf("the Chrome trace is not JSON: %v", err)
			}
			names := map[string]bool{}
			for _, ev := range doc.TraceEvents {
				if ev["name"] == "thread_name" {
					names[ev["args"].(map[string]any)["name"].(string)] = true
				}
			}
			for _, n := range []string{"cpu0", "cpu1", "hog.0", "ticker", "producer", "consumer"} {
				if !names[n] {
					t.Errorf("the Chrome trace has no track named %s", n)
				}
			}
		case "ftrace":
			im, err := trace.ReadFtrace(strings.NewReader(string(data)), path, nil)
			if err != nil {
				t.Fatalf("importing the ftrace text: %v", err)
			}
			if len(im.Workload.Threads) != 7 || im.CPUs != 2 {
				t.Errorf("imported %d threads on %d CPUs, want 7 on 2", len(im.Workload.Threads), im.CPUs)
			}
		}
	}
}

// TestRunReplaysATrace exports a run as ftrace text and runs the file as a workload under two
// other policies: every task of the trace is a thread of the table.
func TestRunReplaysATrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.ftrace")
	if _, errs, code := runCLI(t, "trace", "-format", "ftrace", "-policy", "cfs", "-until", "300ms", "-o", path, "workloads/mixed.wl"); code != exitOK {
		t.Fatalf("trace: status %d, stderr %q", code, errs)
	}
	out, errs, code := runCLI(t, "run", "-policy", "ule,cfs:v7.1", path)
	if code != exitOK || errs != "" {
		t.Fatalf("run of the trace: status %d, stderr %q", code, errs)
	}
	for _, n := range []string{"hog_0-1000", "hog_3-1003", "ticker-1004", "producer-1005", "consumer-1006"} {
		if !strings.Contains(out, "\n"+n+" ") {
			t.Errorf("the replay's table has no row %s:\n%s", n, out)
		}
	}
}
