package main

import (
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
	"github.com/schedkit/schedkit/internal/comparelog"
)

// A placement's CPUs are marked idle or idle-only, a balance's groups local or busiest, and
// the first flag set wins; a CPU or group with neither has no mark.
func TestComparisonsTextMarks(t *testing.T) {
	cs := []comparelog.Comparison{
		{Placement: &comparelog.PlacementFigures{Task: "t", Scope: "llc", CPUs: []comparelog.CPUFigures{
			{CPU: 0, Idle: true, IdleOnly: true}, {CPU: 1, IdleOnly: true}, {CPU: 2, CPUStat: smp.CPUStat{NrRunning: 1, Load: 1024}},
		}}},
		{Balance: &comparelog.BalanceFigures{Domain: "MC", Span: "0-1", Idle: "idle", Reason: "balanced", Groups: []comparelog.GroupFigures{
			{CPUs: []int{0}, Local: true, Busiest: true, Type: "has_spare"}, {CPUs: []int{1}, Busiest: true, Type: "overloaded"}, {CPUs: []int{2}, Type: "has_spare"},
		}}},
	}
	want := "    select_task_rq t from cpu0, prev cpu0, target cpu0: \n      cpu0 0/0 idle cpu1 0/0 idle-only cpu2 1/1024 (llc: nr_running/load)\n" +
		"    find_busiest_group MC 0-1 from cpu0 (idle): balanced\n" +
		"      group [0] local has_spare: 0 tasks on 0 CPUs (0 idle), load 0, capacity 0, util 0, avg_load 0\n" +
		"      group [1] busiest overloaded: 0 tasks on 0 CPUs (0 idle), load 0, capacity 0, util 0, avg_load 0\n" +
		"      group [2] has_spare: 0 tasks on 0 CPUs (0 idle), load 0, capacity 0, util 0, avg_load 0\n"
	if got := comparisonsText(cs); got != want {
		t.Errorf("comparisonsText:\n%q\nwant\n%q", got, want)
	}
}
