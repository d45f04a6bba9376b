package main

// This file implements policy names: "ule:legacy", "cfs:v7.1", "bsd4:freebsd14" and the like,
// resolved by bench/presets, with a few short forms for the shell.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
)

// A policySpec is a policy chosen on the command line: its name in reports and a constructor,
// called once per run because a Policy runs on one machine only.
type policySpec struct {
	arg  string // as written
	name string // sim.Policy.Name, such as "ule-legacy"
	new  func() sim.Policy
}

// shortForms are the names the command accepts besides bench/presets' FAMILY:PRESET: a family
// alone is its default preset, 4bsd is bsd4, and cfs versions may drop the "v".
var shortForms = map[string]string{
	"ule":      "ule:main",
	"bsd4":     "bsd4:main",
	"4bsd":     "bsd4:main",
	"cfs":      "cfs:v6.5",
	"4bsd:14":  "bsd4:freebsd14",
	"4bsd:9":   "bsd4:freebsd9",
	"cfs:6.5":  "cfs:v6.5",
	"cfs:6.6":  "cfs:v6.6",
	"cfs:6.18": "cfs:v6.18",
	"cfs:7.1":  "cfs:v7.1",
}

// canonical returns the bench/presets name arg stands for.
func canonical(arg string) string {
	if n, ok := shortForms[arg]; ok {
		return n
	}
	if rest, ok := strings.CutPrefix(arg, "4bsd:"); ok {
		return "bsd4:" + rest
	}
	return arg
}

// newPolicy returns the policy an argument of -policy names (see presets.Names, and
// shortForms). It is the one place the command builds policies.
func newPolicy(arg string) (policySpec, error) {
	name := canonical(arg)
	p, err := presets.New(name)
	if err != nil {
		return policySpec{}, fmt.Errorf("unknown policy %q: %v", arg, err)
	}
	return policySpec{arg: arg, name: p.Name(), new: func() sim.Policy {
		p, err := presets.New(name)
		if err != nil {
			panic("schedbench: internal error: preset " + name + " refused after it was accepted: " + err.Error())
		}
		return p
	}}, nil
}

// parsePolicies parses the comma-separated list of -policy; a policy named twice is an error.
func parsePolicies(list string) ([]policySpec, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("-policy is empty")
	}
	var specs []policySpec
	var names []string
	for _, arg := range strings.Split(list, ",") {
		p, err := newPolicy(strings.TrimSpace(arg))
		if err != nil {
			return nil, err
		}
		if slices.Contains(names, p.name) {
			return nil, fmt.Errorf("policy %s is listed twice in -policy %q", p.name, list)
		}
		names = append(names, p.name)
		specs = append(specs, p)
	}
	return specs, nil
}
