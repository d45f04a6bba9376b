// Package presets names every policy variant schedkit can simulate, so that a scenario, the
// command line and the host runner all say "ule:legacy" or "cfs:v6.6" and get the same
// scheduler.
//
// A name is FAMILY:PRESET. The families are the policy packages: ule (FreeBSD's ULE), bsd4
// (FreeBSD's 4BSD) and cfs (Linux's CFS and EEVDF). The presets of each family are the
// historical variants the seeds compare, plus the knobs a seed turns on top of one of them:
//
//	name                          what it builds                             seed
//	ule:main                      ule.Preset("main"): FreeBSD main, 2026     003
//	ule:legacy                    ule.Preset("legacy"): 13.x/14.x, 2024      000, 003
//	ule:seed000                   legacy with pick_short=1, preempt_thresh=224 (the patch)  000
//	ule:seed000-psX-ptY           the four rows of seed 000's table          000
//	bsd4:main                     bsd4.DefaultParams: FreeBSD main            000
//	bsd4:freebsd14                bsd4.FreeBSD14Params                        000
//	bsd4:freebsd9                 bsd4.FreeBSD9Params: the 4BSD of 2011       001
//	bsd4:freebsd14-nopreemption   freebsd14 without options PREEMPTION        002
//	bsd4:freebsd14+ipi-preemption freebsd14 with PREEMPTION and IPI_PREEMPTION 002
//	cfs:v6.5                      classic CFS                                 000, 004
//	cfs:v6.6                      the first EEVDF                             000
//	cfs:v6.18                     EEVDF of the CI host's kernel (6.18.y)      host
//	cfs:v7.1                      EEVDF with custom slices                    000
//	cfs:v6.5+favor-nonidle-tick   v6.5 with seed 004's FavorNonIdleTick       004
//
// The list of families is [Families]: each policy package exports its family as a
// sched.Family value (ule.Family, bsd4.Family, cfs.Family) that carries its name, its presets,
// the knob presets a seed turns on top of them and its constructor, so this package holds no
// per-family code. Names lists exactly what New accepts: every preset of a family appears as
// FAMILY:NAME, so a preset added to a policy package (such as ULE's 2011-era "freebsd9")
// appears here without a change. New returns a fresh policy for one machine each time it is
// called: a policy runs on one machine only.
//
// A new policy package joins every harness that takes these names (the command line, the
// scenarios, the host runner's context, the conformance tests of bench/sim/simtest, which
// iterate Families) by one line in Families.
package presets
