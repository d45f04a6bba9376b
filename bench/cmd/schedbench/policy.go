package main

// This file implements policy names: "ule:legacy", "cfs:v7.1", "4bsd:14" and the like.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/ule"
)

// A policySpec is a policy chosen on the command line: its name in reports and a constructor,
// called once per run because a Policy runs on one machine only.
type policySpec struct {
	arg  string // as written
	name string // sim.Policy.Name, such as "ule-legacy"
	new  func() sim.Policy
}

// policyNames lists every name newPolicy accepts, for error messages and -h.
var policyNames = []string{
	"ule (= ule:main)", "ule:legacy", "ule:seed000", "ule:seed000-psX-ptY (X 0|1, Y 48|224)",
	"4bsd (= 4bsd:main)", "4bsd:14", "4bsd:9",
	"cfs (= cfs:v6.5)", "cfs:v6.6", "cfs:v7.1",
}

// newPolicy returns the policy an argument of -policy names: a family (ule, 4bsd or bsd4,
// cfs) and optionally a preset after a colon. It is the one place the CLI builds policies.
func newPolicy(arg string) (policySpec, error) {
	family, preset, _ := strings.Cut(arg, ":")
	var mk func() sim.Policy
	switch family {
	case "ule":
		if preset == "" {
			preset = "main"
		}
		p, err := ule.Preset(preset)
		if err != nil {
			return policySpec{}, fmt.Errorf("unknown ule preset %q (known: %s)", preset, strings.Join(ule.Presets(), ", "))
		}
		mk = func() sim.Policy { return ule.New(p) }
	case "4bsd", "bsd4":
		var p bsd4.Params
		switch preset {
		case "", "main":
			p = bsd4.DefaultParams()
		case "14", "freebsd14":
			p = bsd4.FreeBSD14Params()
		case "9", "freebsd9":
			p = bsd4.FreeBSD9Params()
		default:
			return policySpec{}, fmt.Errorf("unknown 4bsd preset %q (known: main, 14, 9)", preset)
		}
		mk = func() sim.Policy { return bsd4.New(p) }
	case "cfs":
		var v cfs.Version
		switch strings.TrimPrefix(preset, "v") {
		case "", "6.5":
			v = cfs.V65
		case "6.6":
			v = cfs.V66
		case "7.1":
			v = cfs.V71
		default:
			return policySpec{}, fmt.Errorf("unknown cfs version %q (known: v6.5, v6.6, v7.1)", preset)
		}
		mk = func() sim.Policy { return cfs.NewScheduler(cfs.SchedulerOptions{Version: v}) }
	default:
		return policySpec{}, fmt.Errorf("unknown policy %q (known: %s)", arg, strings.Join(policyNames, ", "))
	}
	return policySpec{arg: arg, name: mk().Name(), new: mk}, nil
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
