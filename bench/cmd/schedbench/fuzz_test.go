package main

import (
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/presets"
)

// modelPolicyNames is the naive model of -policy's names: every bench/presets name, the short
// forms, and 4bsd:PRESET for each bsd4 preset, each with the presets name it stands for.
func modelPolicyNames() map[string]string {
	m := map[string]string{}
	for _, n := range presets.Names() {
		m[n] = n
		if rest, ok := strings.CutPrefix(n, "bsd4:"); ok {
			m["4bsd:"+rest] = n
		}
	}
	for k, v := range map[string]string{"ule": "ule:main", "bsd4": "bsd4:main", "4bsd": "bsd4:main", "cfs": "cfs:v6.5",
		"4bsd:14": "bsd4:freebsd14", "4bsd:9": "bsd4:freebsd9", "cfs:6.5": "cfs:v6.5", "cfs:6.6": "cfs:v6.6", "cfs:6.18": "cfs:v6.18", "cfs:7.1": "cfs:v7.1"} {
		m[k] = v
	}
	return m
}

// FuzzParsePolicies compares parsePolicies with the model: a list is accepted exactly when
// every item, trimmed, is a known name and no two items stand for the same preset; a refusal
// is one line. It never panics.
func FuzzParsePolicies(f *testing.F) {
	for _, s := range []string{"ule", "ule:legacy,cfs:v7.1", "4bsd:14, cfs", "ule,ule:main", "", ",", "cfs:v9", "bsd4:freebsd9,4bsd:9"} {
		f.Add(s)
	}
	model := modelPolicyNames()
	f.Fuzz(func(t *testing.T, list string) {
		specs, err := parsePolicies(list)
		want := strings.TrimSpace(list) != ""
		var seen []string
		for _, item := range strings.Split(list, ",") {
			n, ok := model[strings.TrimSpace(item)]
			if !ok || slices.Contains(seen, n) {
				want = false
				break
			}
			seen = append(seen, n)
		}
		if (err == nil) != want {
			t.Fatalf("parsePolicies(%q) = %d policies, %v; the model says accepted=%v", list, len(specs), err, want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("parsePolicies(%q): the error is not one line: %q", list, err)
		}
		if err == nil && len(specs) != len(seen) {
			t.Fatalf("parsePolicies(%q) = %d policies, want %d", list, len(specs), len(seen))
		}
	})
}

var shardRE = regexp.MustCompile(`^([+-]?[0-9]+)/([+-]?[0-9]+)$`)

// FuzzParseShard compares parseShard with a naive reader: two decimal integers around a slash,
// 0 <= k < n, both fitting an int.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/2", "1/4", "-1/3", "a/b", "/", "0/0", "+1/+2", "99999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, n, err := parseShard(s)
		want := false
		var wk, wn big.Int
		if m := shardRE.FindStringSubmatch(s); m != nil {
			wk.SetString(strings.TrimPrefix(m[1], "+"), 10)
			wn.SetString(strings.TrimPrefix(m[2], "+"), 10)
			want = wk.IsInt64() && wn.IsInt64() && wk.Sign() >= 0 && wk.Cmp(&wn) < 0
		}
		if (err == nil) != want {
			t.Fatalf("parseShard(%q) = %d, %d, %v; the model says accepted=%v", s, k, n, err, want)
		}
		if err == nil && (int64(k) != wk.Int64() || int64(n) != wn.Int64()) {
			t.Fatalf("parseShard(%q) = %d/%d, want %v/%v", s, k, n, &wk, &wn)
		}
	})
}
