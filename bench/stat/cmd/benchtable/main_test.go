package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var in strings.Builder
	for r := range 8 {
		in.WriteString("BenchmarkPick/load=4/impl=ule-2 \t 100\t " + []string{"10", "11", "12", "10", "11", "12", "10", "11"}[r] + " ns/op\n")
		in.WriteString("BenchmarkPick/load=4/impl=heap-2 \t 100\t " + []string{"30", "31", "32", "30", "31", "32", "30", "31"}[r] + " ns/op\n")
	}
	path := filepath.Join(t.TempDir(), "rounds.txt")
	if err := os.WriteFile(path, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	if status := run([]string{"-col", "/impl", path}, nil, &out, &errb); status != 0 {
		t.Fatalf("benchtable: status %d, %s", status, errb.String())
	}
	for _, want := range []string{"sec/op", "ule", "heap", "vs ule", "Pick/load=4-2", "11.00n ±", "31.00n ±", "+181.82% (p=0.000 n=8)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if status := run([]string{"-"}, strings.NewReader(in.String()), &out, &errb); status != 0 || !strings.Contains(out.String(), "<stdin>") {
		t.Errorf("benchtable - : status %d\n%s", status, out.String())
	}
	for _, args := range [][]string{{}, {"-bogus"}, {filepath.Join(t.TempDir(), "missing.txt")}, {"-confidence", "100", path}} {
		errb.Reset()
		if status := run(args, nil, &out, &errb); status == 0 || errb.Len() == 0 {
			t.Errorf("benchtable %v: status %d, stderr %q; want a failure with a message", args, status, errb.String())
		}
	}
}
