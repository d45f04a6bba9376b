package cfs

import "testing"

// get_update_sysctl_factor and update_sysctl, kernel/sched/fair.c v6.5 (blob b3e25be58e2b).

func TestScaleFactor(t *testing.T) {
	logWant := []uint64{1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4}
	for n := 1; n <= 16; n++ {
		if got := ScaleFactor(ScalingLog, n); got != logWant[n-1] {
			t.Errorf("ScaleFactor(log, %d) = %d, want %d", n, got, logWant[n-1])
		}
		if got := ScaleFactor(ScalingNone, n); got != 1 {
			t.Errorf("ScaleFactor(none, %d) = %d, want 1", n, got)
		}
		if got, want := ScaleFactor(ScalingLinear, n), uint64(min(n, 8)); got != want {
			t.Errorf("ScaleFactor(linear, %d) = %d, want %d", n, got, want)
		}
	}
	if got := ScaleFactor(ScalingLog, 1024); got != 4 {
		t.Errorf("ScaleFactor(log, 1024) = %d, want 4", got)
	}
}

func TestPreset(t *testing.T) {
	tests := []struct {
		ncpus                    int
		latency, minGran, wakeup uint64
	}{
		{1, 6_000_000, 750_000, 1_000_000},
		{2, 12_000_000, 1_500_000, 2_000_000},
		{4, 18_000_000, 2_250_000, 3_000_000},
		{8, 24_000_000, 3_000_000, 4_000_000},
		{64, 24_000_000, 3_000_000, 4_000_000},
	}
	for _, tc := range tests {
		p := Preset(V65, tc.ncpus)
		if p.Latency != tc.latency || p.MinGranularity != tc.minGran || p.WakeupGranularity != tc.wakeup {
			t.Errorf("Preset(V65, %d) = latency %d, min_gran %d, wakeup_gran %d; want %d, %d, %d", tc.ncpus,
				p.Latency, p.MinGranularity, p.WakeupGranularity, tc.latency, tc.minGran, tc.wakeup)
		}
		if p.IdleMinGranularity != 750_000 || p.NrLatency != 8 {
			t.Errorf("Preset(V65, %d) = idle_min_gran %d, nr_latency %d; want 750000 and 8 (unscaled)", tc.ncpus, p.IdleMinGranularity, p.NrLatency)
		}
	}
	// features.h v6.5 (blob ee7f23c76bd3): the defaults.
	p := DefaultParams()
	if !p.GentleFairSleepers || !p.StartDebit || !p.LastBuddy || p.NextBuddy || !p.WakeupPreemption || !p.AltPeriod || !p.BaseSlice {
		t.Errorf("DefaultParams() features = %+v, want GENTLE_FAIR_SLEEPERS, START_DEBIT, LAST_BUDDY, WAKEUP_PREEMPTION, ALT_PERIOD, BASE_SLICE on and NEXT_BUDDY off", p)
	}
	if p.ChildRunsFirst || p.FavorNonIdleTick || p.CalcDelta != DeltaWMult || p.Version != V65 {
		t.Errorf("DefaultParams() = %+v, want child_runs_first 0, the seed-004 option off, wmult arithmetic, v6.5", p)
	}
}

func TestParamsStrings(t *testing.T) {
	tests := []struct{ got, want string }{
		{V65.String(), "v6.5"},
		{Version(0).String(), "Version(0)"},
		{DeltaWMult.String(), "wmult"},
		{DeltaDiv.String(), "div"},
		{DeltaMethod(5).String(), "DeltaMethod(5)"},
		{Normal.String(), "SCHED_NORMAL"},
		{Batch.String(), "SCHED_BATCH"},
		{Idle.String(), "SCHED_IDLE"},
		{Policy(4).String(), "Policy(4)"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}

func TestParamsPanics(t *testing.T) {
	assertPanics(t, "Preset(0, 1)", func() { Preset(0, 1) }, "cfs: Preset: unknown version 0")
	assertPanics(t, "Preset(V65, 0)", func() { Preset(V65, 0) }, "cfs: ScaleFactor: 0 CPUs")
	assertPanics(t, "ScaleFactor(9, 1)", func() { ScaleFactor(TunableScaling(9), 1) }, "cfs: ScaleFactor: unknown scaling 9")
}
