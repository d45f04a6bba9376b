package main

import "testing"

// TestTopGolden pins top's screens of the mixed workload under ULE (main and legacy layouts:
// PZERO 68 and 100) and 4BSD (WCPU weighted by exp(-1/20) a second), and procps' under EEVDF.
func TestTopGolden(t *testing.T) {
	for _, c := range []struct{ name, policy string }{{"ule", "ule"}, {"ule-legacy", "ule:legacy"}, {"4bsd", "4bsd"}, {"eevdf", "cfs:v7.1"}} {
		out, errs, code := runCLI(t, "top", "-policy", c.policy, "-until", "2s", "-every", "1s", "workloads/mixed.wl")
		if code != exitOK || errs != "" {
			t.Fatalf("%s: status %d, stderr %q", c.name, code, errs)
		}
		checkGolden(t, "top-"+c.name+".golden", []byte(out))
	}
}
