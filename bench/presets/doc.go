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
//	cfs:v7.1                      EEVDF with custom slices                    000
//	cfs:v6.5+favor-nonidle-tick   v6.5 with seed 004's FavorNonIdleTick       004
//
// Names lists exactly what New accepts: every preset a policy package's Presets returns appears
// as FAMILY:NAME, so a preset added there (such as ULE's 2011-era "freebsd9") appears here
// without a change, and New builds it with that package's Preset and New. New returns a fresh policy for one machine each time it is called: a sim.Policy runs
// on one machine only.
//
// This package is the one place that knows the constructors of the policy packages, so that
// their renames touch one file (policy.go).
package presets
