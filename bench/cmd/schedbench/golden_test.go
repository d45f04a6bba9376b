package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
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

// TestJSONSchemaRoundTrip decodes run's JSON into the schema type, refusing unknown fields,
// and encodes it again: the bytes must be the same, so that the schema documents every field.
func TestJSONSchemaRoundTrip(t *testing.T) {
	out, errs, code := runCLI(t, append([]string{"run", "-format", "json", "-reps", "2"}, smallRun...)...)
	if code != exitOK {
		t.Fatalf("status %d, stderr %q", code, errs)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var d runDoc
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("decoding run's JSON as %s: %v", schemaVersion, err)
	}
	if d.Schema != schemaVersion || !d.Complete || len(d.Runs) != 6 || len(d.Policies) != 3 || d.Reps != 2 {
		t.Errorf("document = schema %q complete %v, %d runs, %d policies, reps %d; want %q, true, 6, 3, 2",
			d.Schema, d.Complete, len(d.Runs), len(d.Policies), d.Reps, schemaVersion)
	}
	var b bytes.Buffer
	if err := writeJSON(&b, d); err != nil {
		t.Fatal(err)
	}
	if b.String() != out {
		t.Errorf("JSON does not round-trip through runDoc:\n%s\nwant\n%s", b.String(), out)
	}
	for _, r := range d.Runs {
		for _, th := range r.Threads {
			if th.Share < 0 || th.Share > 1 || th.CPUNS+th.WaitNS+th.SleepNS > r.EndNS-th.StartNS+1 {
				t.Errorf("%s rep %d thread %s: share %g, cpu+wait+sleep %d ns over a lifetime of at most %d ns",
					r.Policy, r.Rep, th.Name, th.Share, th.CPUNS+th.WaitNS+th.SleepNS, r.EndNS-th.StartNS)
			}
		}
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
