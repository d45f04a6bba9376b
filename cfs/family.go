package cfs

// This file implements Family, CFS and EEVDF as one policy family among the others, with the
// knob preset seed 004 turns.

import "github.com/schedkit/schedkit/sched"

// familyPresets are the presets Family offers: one per kernel version ([Presets]) and the knob
// preset "v6.5+favor-nonidle-tick", v6.5 with seed 004's FavorNonIdleTick.
func familyPresets() sched.Presets[Params] {
	ps := make(sched.Presets[Params], 0, len(presetVersions)+1)
	for _, v := range presetVersions {
		ps = append(ps, sched.Preset[Params]{Name: v.String(), Params: func() Params {
			p, _ := versionParams(v)
			return p
		}})
	}
	return append(ps, sched.Preset[Params]{Name: "v6.5+favor-nonidle-tick", Params: func() Params {
		p, _ := versionParams(V65)
		p.FavorNonIdleTick = true
		p.Name = "cfs-v6.5-favor-nonidle-tick"
		return p
	}})
}

// Family returns CFS as a policy family named "cfs" with group scheduling: the presets of
// [Presets] and the knob preset "v6.5+favor-nonidle-tick" (seed 004), each built by [New].
// bench/presets lists it; bench/sim/simtest runs the conformance tests on every preset of it.
func Family() sched.Family {
	f := sched.NewFamily("cfs", familyPresets(), New)
	f.Groups = true
	return f
}

var _ sched.Policy = (*Scheduler)(nil)
