package smp

import "testing"

// TestDefaultParams checks v6.5's defaults (features.h blob ee7f23c76bd3, sysctls of fair.c):
// migration cost 500 µs, nr_migrate 32, CACHE_HOT_BUDDY, WA_IDLE, WA_WEIGHT, WA_BIAS, SIS_UTIL
// and the one-task newly idle pull on, LB_MIN and v7.1's can_migrate_task tests off, per-CPU
// group construction.
func TestDefaultParams(t *testing.T) {
	want := Params{MigrationCost: 500_000, NrMigrate: 32, CacheHotBuddy: true, WAIdle: true, WAWeight: true,
		WABias: true, SISUtil: true, NewidleOnePull: true, Groups: GroupsPerCPU}
	if got := DefaultParams(); got != want {
		t.Errorf("DefaultParams() = %+v, want %+v", got, want)
	}
}

func TestGroupConstructionString(t *testing.T) {
	for g, want := range map[GroupConstruction]string{GroupsPerCPU: "per-cpu", GroupsFirstCPU: "first-cpu", 7: "GroupConstruction(7)"} {
		if got := g.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", uint8(g), got, want)
		}
	}
}
