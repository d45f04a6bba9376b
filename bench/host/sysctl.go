package host

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// upstreamSchedSysctls are the scheduler's entries of /proc/sys/kernel in upstream Linux
// (kernel/sched/core.c, rt.c, deadline.c, fair.c, topology.c and autogroup.c, v5.x to v6.18):
// the ones whose presence says nothing about the kernel's scheduler being patched.
var upstreamSchedSysctls = []string{
	"sched_autogroup_enabled",
	"sched_cfs_bandwidth_slice_us",
	"sched_child_runs_first",
	"sched_deadline_period_max_us",
	"sched_deadline_period_min_us",
	"sched_energy_aware",
	"sched_latency_ns",
	"sched_migration_cost_ns",
	"sched_min_granularity_ns",
	"sched_nr_migrate",
	"sched_rr_timeslice_ms",
	"sched_rt_period_us",
	"sched_rt_runtime_us",
	"sched_schedstats",
	"sched_tunable_scaling",
	"sched_util_clamp_max",
	"sched_util_clamp_min",
	"sched_util_clamp_min_rt_default",
	"sched_wakeup_granularity_ns",
}

// NonUpstreamSchedSysctls returns the running kernel's scheduler sysctls that upstream Linux does
// not have, as "name=value" in name order: a vendor kernel's scheduler changes announce
// themselves there (this project's CI machine type, a paravirtualised guest, has
// kernel.sched_vcpu_pack), and a model of upstream's scheduler cannot be expected to match a
// kernel that packs or places threads by rules of its own. It returns nil where there are none
// or there is no /proc/sys (not Linux).
func NonUpstreamSchedSysctls() []string {
	return nonUpstreamSchedSysctls("/proc/sys/kernel")
}

// nonUpstreamSchedSysctls is NonUpstreamSchedSysctls over the directory dir.
func nonUpstreamSchedSysctls(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "sched_") || e.IsDir() || slices.Contains(upstreamSchedSysctls, name) {
			continue
		}
		value := "?"
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			value = strings.Join(strings.Fields(string(b)), " ")
		}
		out = append(out, name+"="+value)
	}
	return out
}
