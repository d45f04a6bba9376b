package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateREADME = flag.Bool("update-readme", false, "run every seed scenario at its defaults (about a minute of CPU) and reprint the summary in README.md")

const (
	readmeBegin = "<!-- seeds summary: begin -->\n"
	readmeEnd   = "<!-- seeds summary: end -->\n"
)

// TestREADMESeeds checks that README's fidelity section is the summary schedbench seeds
// prints: one line per registered claim, in order, with the claim's words and the seed's
// figure. Our figures and verdicts need the full run, about a minute of CPU time; -update-readme
// makes that run and writes its summary into README.md.
func TestREADMESeeds(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	a, b := strings.Index(text, readmeBegin), strings.Index(text, readmeEnd)
	if a < 0 || b < a {
		t.Fatalf("README.md has no %q … %q block", strings.TrimSpace(readmeBegin), strings.TrimSpace(readmeEnd))
	}
	if *updateREADME {
		out, errs, code := runCLI(t, "seeds", "-q")
		if code != exitOK {
			t.Fatalf("seeds: status %d, stderr %q", code, errs)
		}
		summary, _, _ := strings.Cut(out, "\n'schedbench seeds -v'")
		block := "```\n" + strings.TrimRight(summary, "\n") + "\n```\n"
		text = text[:a+len(readmeBegin)] + block + text[b:]
		if err := os.WriteFile("../../../README.md", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		b = strings.Index(text, readmeEnd)
	}
	block := text[a+len(readmeBegin) : b]
	// The small run gives the same claims and seed figures as the defaults; only ours differ.
	out, errs, code := runCLI(t, "seeds", "-q", "-small")
	if code != exitOK {
		t.Fatalf("seeds -small: status %d, stderr %q", code, errs)
	}
	want := claimColumns(out)
	got := claimColumns(block)
	if len(want) == 0 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("README's summary is not the one schedbench seeds prints (go test ./bench/cmd/schedbench -run TestREADMESeeds -update-readme):\nREADME:\n%s\nseeds:\n%s",
			strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// claimColumns returns, for each claim line of a summary, its seed, claim and the seed's figure:
// the columns before ours.
func claimColumns(summary string) []string {
	var out []string
	lines := strings.Split(summary, "\n")
	header := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "seed  claim ") {
			header = i
			break
		}
	}
	if header < 0 {
		return nil
	}
	oursCol := strings.Index(lines[header], "ours")
	for _, l := range lines[header+1:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		r := []rune(l)
		col := len([]rune(lines[header][:oursCol]))
		if col > len(r) {
			col = len(r)
		}
		out = append(out, strings.Join(strings.Fields(string(r[:col])), " "))
	}
	return out
}
