package host

// This file implements the choice of the simulated policy to put beside the host: the preset
// nearest the running kernel, and the others for context.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
)

// NewPolicy returns a fresh simulated policy by its bench/presets name, such as "cfs:v7.1" or
// "ule:legacy", and reports whether it schedules groups (ULE and 4BSD do not: their runs flatten
// the workload's groups). It is the one place this package constructs policies.
func NewPolicy(name string) (p sim.Policy, groups bool, err error) {
	f, _, err := presets.Find(name)
	if err != nil {
		return nil, false, fmt.Errorf("host: %w", err)
	}
	if p, err = presets.New(name); err != nil {
		return nil, false, fmt.Errorf("host: %w", err)
	}
	return p, f.Groups, nil
}

// NearestPolicy returns the name of the simulated preset nearest a Linux release such as
// "6.18.44-fc-v669": classic CFS ("cfs:v6.5") before 6.6; EEVDF as merged ("cfs:v6.6") from
// 6.6; "cfs:v6.18" from 6.12, which added delayed dequeue, custom slices
// (sched_attr.sched_runtime), slice protection and PREEMPT_SHORT but kept v6.6's arithmetic
// (weights scaled down to 1024 in the average, the multiplying __calc_delta), up to 7.0, the
// last release before the dividing __calc_delta (commit db4551e2ba34); and "cfs:v7.1" from 7.1
// on. 6.12 to 6.17 differ from v6.18 in details the preset follows 6.18 in (min_vruntime rather
// than zero_vruntime as the average's reference, the protection point kept in vlag, when a
// wakeup shortens the protection), but share its arithmetic and its delayed dequeue, which set
// them further from v7.1. An unreadable release gives "cfs:v7.1", the model's latest.
func NearestPolicy(release string) string {
	maj, min := ReleaseVersion(release)
	switch {
	case maj == 0:
		return "cfs:v7.1"
	case maj < 6 || maj == 6 && min < 6:
		return "cfs:v6.5"
	case maj == 6 && min < 12:
		return "cfs:v6.6"
	case maj == 6 || maj == 7 && min < 1:
		return "cfs:v6.18"
	}
	return "cfs:v7.1"
}

// ContextPolicies are the policies a comparison shows beside the nearest one.
var contextPolicies = []string{"cfs:v6.5", "cfs:v6.6", "cfs:v6.18", "cfs:v7.1", "ule:legacy", "ule:main"}

// ReleaseVersion returns the major and minor numbers of a kernel release string such as
// "6.18.44-fc-v669", or 0, 0 if it does not start with them.
func ReleaseVersion(rel string) (major, minor int) {
	maj, rest, ok := strings.Cut(rel, ".")
	if !ok {
		return 0, 0
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(rest[:n])
	if err1 != nil || err2 != nil || a < 0 {
		return 0, 0
	}
	return a, b
}
