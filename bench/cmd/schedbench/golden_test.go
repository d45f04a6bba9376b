package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/internal/schematest"
)

// smallRun is the small input of the golden tests: three policies, a few hundred milliseconds.
var smallRun = []string{"-policy", "ule:legacy,cfs:v7.1,4bsd", "-topology", "cpu:2", "-until", "300ms", "workloads/mixed.wl"}

func TestRunGolden(t *testing.T) {
	for _, format := range []string{"text", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			args := append([]string{"run", "-format", format}, smallRun...)
			out, errs, code := runCLI(t, args...)
			if code != exitOK || errs != "" {
				t.Fatalf("schedbench %s = %d, stderr %q", strings.Join(args, " "), code, errs)
			}
			checkGolden(t, "run."+format+".golden", []byte(out))
			if format == "json" {
				schematest.Validate(t, []byte(out))
			}
		})
	}
}

// TestRunRepsGolden checks the table of repeated runs (medians) and that -parallel does not
// change a byte of it.
func TestRunRepsGolden(t *testing.T) {
	var first string
	for _, par := range []string{"1", "2", "4"} {
		args := []string{"run", "-reps", "4", "-parallel", par, "-policy", "ule,cfs", "-topology", "cpu:2", "-until", "200ms", "workloads/mixed.wl"}
		out, errs, code := runCLI(t, args...)
		if code != exitOK || errs != "" {
			t.Fatalf("schedbench %s = %d, stderr %q", strings.Join(args, " "), code, errs)
		}
		if first == "" {
			first = out
			checkGolden(t, "run-reps.golden", []byte(out))
		} else if out != first {
			t.Errorf("-parallel %s changed the output:\n%s\nwant\n%s", par, out, first)
		}
	}
}

// runsDoc is run's JSON document (schema sim.RunsSchema) as the tests read it.
type runsDoc struct {
	Schema   string            `json:"schema"`
	Settings map[string]string `json:"settings"`
	Columns  []string          `json:"columns"`
	Complete bool              `json:"complete"`
	Runs     []struct {
		Column string      `json:"column"`
		Rep    int         `json:"rep"`
		Seed   uint64      `json:"seed"`
		Result *sim.Result `json:"result"`
	} `json:"runs"`
}

// readRunsDoc validates data against the published JSON Schema and decodes it.
func readRunsDoc(t *testing.T, data []byte) *runsDoc {
	t.Helper()
	schematest.Validate(t, data)
	var d runsDoc
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("decoding run's JSON as %s: %v", sim.RunsSchema, err)
	}
	return &d
}

// TestRunJSON checks run's JSON document: it validates against bench/sim/result.schema.json,
// holds every run, and writing its decoded runs again as a Summary gives the same bytes, so
// that the document holds everything the writer knows.
func TestRunJSON(t *testing.T) {
	out, errs, code := runCLI(t, append([]string{"run", "-format", "json", "-reps", "2"}, smallRun...)...)
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	d := readRunsDoc(t, []byte(out))
	if d.Schema != sim.RunsSchema || !d.Complete || len(d.Runs) != 6 || len(d.Columns) != 3 || d.Settings["reps"] != "2" {
		t.Errorf("document = schema %q complete %v, %d runs, %d columns, reps %q; want %q, true, 6, 3, 2",
			d.Schema, d.Complete, len(d.Runs), len(d.Columns), d.Settings["reps"], sim.RunsSchema)
	}
	var cols []sim.Column
	for _, r := range d.Runs {
		if len(cols) == 0 || cols[len(cols)-1].Name != r.Column {
			cols = append(cols, sim.Column{Name: r.Column})
		}
		r.Result.Seed = r.Seed
		c := &cols[len(cols)-1]
		c.Reps = append(c.Reps, sim.Rep{N: r.Rep, Result: r.Result})
		for i := range r.Result.Threads {
			th := &r.Result.Threads[i]
			if sh := th.Share(); sh < 0 || sh > 1 || th.CPUTime+th.WaitTime+th.Sleep > r.Result.End-th.Start+1 {
				t.Errorf("%s rep %d thread %s: share %g, cpu+wait+sleep %d ns over a lifetime of at most %d ns",
					r.Column, r.Rep, th.Name, sh, th.CPUTime+th.WaitTime+th.Sleep, r.Result.End-th.Start)
			}
		}
	}
	sum := sim.Summarize(sim.Table{}, cols...)
	for k, v := range d.Settings {
		sum.Settings = append(sum.Settings, sim.Setting{Key: k, Value: v})
	}
	var b bytes.Buffer
	if err := sum.Write(&b, sim.JSON); err != nil {
		t.Fatal(err)
	}
	if b.String() != out {
		t.Errorf("JSON does not round-trip through sim.Summary:\n%s\nwant\n%s", b.String(), out)
	}
}

func TestExplainGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"cpu-window", []string{"-policy", "ule", "-cpu", "1", "-from", "10ms", "-to", "12ms", "workloads/mixed.wl"}},
		{"thread-only", []string{"-policy", "cfs:v7.1", "-thread", "ticker", "-only", "-until", "50ms", "workloads/mixed.wl"}},
		{"at", []string{"-policy", "4bsd", "-at", "0s", "-n", "8", "workloads/mixed.wl"}},
		{"state-ule", []string{"-policy", "ule", "-state", "-only", "-cpu", "1", "-from", "10ms", "-to", "12ms", "workloads/mixed.wl"}},
		{"state-4bsd", []string{"-policy", "4bsd", "-state", "-only", "-from", "10ms", "-to", "11ms", "workloads/mixed.wl"}},
		{"state-eevdf", []string{"-policy", "cfs:v7.1", "-state", "-only", "-cpu", "0", "-from", "10ms", "-to", "11ms", "workloads/mixed.wl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, append([]string{"explain"}, tc.args...)...)
			if code != exitOK || errs != "" {
				t.Fatalf("status %d, stderr %q", code, errs)
			}
			checkGolden(t, "explain-"+tc.name+".golden", []byte(out))
		})
	}
}

// TestExplainStateReadOnly checks that -state adds the policy's state beneath the decisions and
// changes nothing else: the output without the state's indented lines is the output of the same
// command without -state, record for record, under ULE and 4BSD (the snapshots only read, and
// stepping the machine one event at a time makes the same run as Run).
func TestExplainStateReadOnly(t *testing.T) {
	for _, policy := range []string{"ule", "4bsd", "ule:legacy", "cfs:v6.5", "cfs:v7.1"} {
		args := []string{"explain", "-policy", policy, "-until", "200ms", "workloads/mixed.wl"}
		plain, errs, code := runCLI(t, args...)
		if code != exitOK || errs != "" {
			t.Fatalf("%s: status %d, stderr %q", policy, code, errs)
		}
		withState, errs, code := runCLI(t, append(args[:1:1], append([]string{"-state"}, args[1:]...)...)...)
		if code != exitOK || errs != "" {
			t.Fatalf("%s -state: status %d, stderr %q", policy, code, errs)
		}
		var kept []string
		states := 0
		for _, line := range strings.SplitAfter(withState, "\n") {
			if strings.HasPrefix(line, "    ") {
				states++
				continue
			}
			kept = append(kept, line)
		}
		if states == 0 {
			t.Errorf("%s: -state printed no state", policy)
		}
		if got := strings.Join(kept, ""); got != plain {
			t.Errorf("%s: -state changed the records (%d bytes without the state, %d without -state)", policy, len(got), len(plain))
		}
	}
}

// TestRunScenario runs a scenario by name: its first row's workload, machine and length.
func TestRunScenario(t *testing.T) {
	out, errs, code := runCLI(t, "run", "-policy", "ule,cfs", "-until", "2s", "seed000-nice")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	checkGolden(t, "run-scenario.golden", []byte(out))
}

// TestRunFlatten runs a workload with control groups under CFS, which keeps them (weights 50
// and 200: 20% and 80%), and ULE, which has none and runs both threads in the root group with
// -flatten (50% each).
func TestRunFlatten(t *testing.T) {
	out, errs, code := runCLI(t, "run", "-flatten", "-policy", "cfs,ule", "-topology", "cpu:1", "-until", "1s", "testdata/groups.wl")
	if code != exitOK || errs != "" {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	checkGolden(t, "run-flatten.golden", []byte(out))
}

// TestMergeRefusesRunDocuments checks that merge, given run's JSON document (today's, or the
// schedbench.run/1 of earlier versions) instead of a sweep's results, says what it was given.
func TestMergeRefusesRunDocuments(t *testing.T) {
	for _, tc := range []struct{ name, input, schema string }{
		{"runs", "", sim.RunsSchema},
		{"old", `{"schema": "schedbench.run/1", "workload": "mixed", "runs": []}`, "schedbench.run/1"},
		{"result", `{"schema":"schedkit.sim.result/1","policy":"x"}`, sim.ResultSchema},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"merge", "seed000-nice", "-"}
			input := tc.input
			if input == "" {
				args[2] = "testdata/run.json.golden"
			}
			out, errs, code := runCLIStdin(t, input, args...)
			want := "a " + tc.schema + " document, not a sweep's results"
			if code != exitUsage || out != "" || !strings.Contains(errs, want) {
				t.Errorf("merge of a %s document: status %d, stdout %q, stderr %q; want %d and an error containing %q",
					tc.schema, code, out, errs, exitUsage, want)
			}
		})
	}
}
