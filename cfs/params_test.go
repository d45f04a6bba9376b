package cfs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/cfs/smp"
)

// get_update_sysctl_factor and update_sysctl, kernel/sched/fair.c v6.5 (blob b3e25be58e2b).

func TestScaleFactor(t *testing.T) {
	logWant := []uint64{1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4}
	for n := 1; n <= 16; n++ {
		if got := scaleFactor(ScalingLog, n); got != logWant[n-1] {
			t.Errorf("ScaleFactor(log, %d) = %d, want %d", n, got, logWant[n-1])
		}
		if got := scaleFactor(ScalingNone, n); got != 1 {
			t.Errorf("ScaleFactor(none, %d) = %d, want 1", n, got)
		}
		if got, want := scaleFactor(ScalingLinear, n), uint64(min(n, 8)); got != want {
			t.Errorf("ScaleFactor(linear, %d) = %d, want %d", n, got, want)
		}
	}
	if got := scaleFactor(ScalingLog, 1024); got != 4 {
		t.Errorf("ScaleFactor(log, 1024) = %d, want 4", got)
	}
}

// TestDefaultSMPParams checks the SMP defaults of v6.5 (features.h blob ee7f23c76bd3, sysctls
// of fair.c): migration cost 500 µs, nr_migrate 32, CACHE_HOT_BUDDY, WA_IDLE, WA_WEIGHT, WA_BIAS,
// SIS_UTIL and the one-task newly idle pull on, LB_MIN off, per-CPU group construction; v6.18
// (fair.c blob 7e0e2044d840, can_migrate_task) and v7.1 keep them and add can_migrate_task's two
// tests.
func TestDefaultSMPParams(t *testing.T) {
	want := smp.Params{MigrationCost: 500_000, NrMigrate: 32, CacheHotBuddy: true, WAIdle: true, WAWeight: true,
		WABias: true, SISUtil: true, NewidleOnePull: true, Groups: smp.GroupsPerCPU}
	for _, v := range []Version{V65, V66, V618, V71} {
		w := want
		w.MigrateDelayed, w.MigrateIneligible = v >= V618, v >= V618
		if got := defaultSMPParams(v); got != w {
			t.Errorf("defaultSMPParams(%v) = %+v, want %+v", v, got, w)
		}
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
		p := preset(V65, tc.ncpus)
		if p.Latency != tc.latency || p.MinGranularity != tc.minGran || p.WakeupGranularity != tc.wakeup {
			t.Errorf("preset(V65, %d) = latency %d, min_gran %d, wakeup_gran %d; want %d, %d, %d", tc.ncpus,
				p.Latency, p.MinGranularity, p.WakeupGranularity, tc.latency, tc.minGran, tc.wakeup)
		}
		if p.IdleMinGranularity != 750_000 || p.NrLatency != 8 {
			t.Errorf("preset(V65, %d) = idle_min_gran %d, nr_latency %d; want 750000 and 8 (unscaled)", tc.ncpus, p.IdleMinGranularity, p.NrLatency)
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
		{Class(4).String(), "Class(4)"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("String() = %q, want %q", tc.got, tc.want)
		}
	}
}

func TestParamsPanics(t *testing.T) {
	assertPanics(t, "DefaultParams().ForCPUs(0)", func() { DefaultParams().ForCPUs(0) }, "cfs: Params.ForCPUs: 0 CPUs")
	assertPanics(t, "ScaleFactor(9, 1)", func() { scaleFactor(TunableScaling(9), 1) }, "cfs: Params.ForCPUs: unknown scaling 9")
}

// preset returns version v's preset scaled for ncpus CPUs, the parameters of one CPU of such a
// machine. It panics for an unknown version.
func preset(v Version, ncpus int) Params { return vparams(v).ForCPUs(ncpus) }

// vparams returns version v's preset as [Preset] gives it, unscaled. It panics for an unknown
// version.
func vparams(v Version) Params {
	p, ok := versionParams(v)
	if !ok {
		panic(fmt.Sprintf("cfs: no preset for version %d", v))
	}
	return p
}

// mustNew returns New(p), failing tb on an error.
func mustNew(tb testing.TB, p Params) *Scheduler {
	tb.Helper()
	s, err := New(p)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return s
}

// TestPresets checks that every listed preset loads, names its version, validates, and scales
// as update_sysctl does; and that an unknown name is an error naming the known ones.
func TestPresets(t *testing.T) {
	names := Presets()
	if got, want := fmt.Sprint(names), "[v6.5 v6.6 v6.18 v7.1]"; got != want {
		t.Errorf("Presets() = %s, want %s", got, want)
	}
	for i, name := range names {
		p, err := Preset(name)
		if err != nil {
			t.Fatalf("Preset(%q): %v", name, err)
		}
		if p.Version != presetVersions[i] || p.Name != "cfs-"+name || p.Scaling != ScalingLog {
			t.Errorf("Preset(%q) = version %v, name %q, scaling %d; want %v, %q, log", name, p.Version, p.Name, p.Scaling, presetVersions[i], "cfs-"+name)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("Preset(%q).Validate() = %v", name, err)
		}
		q := p.ForCPUs(8)
		if q.Latency != 4*p.Latency || q.DefaultSlice != 4*p.DefaultSlice || q.NormalizedSlice != p.NormalizedSlice || q.Scaling != ScalingNone {
			t.Errorf("Preset(%q).ForCPUs(8) = latency %d, slice %d, normalized %d, scaling %d; want %d, %d, %d, none",
				name, q.Latency, q.DefaultSlice, q.NormalizedSlice, q.Scaling, 4*p.Latency, 4*p.DefaultSlice, p.NormalizedSlice)
		}
		if r := q.ForCPUs(8); r != q {
			t.Errorf("Preset(%q).ForCPUs(8).ForCPUs(8) scaled again", name)
		}
		if err := q.Validate(); err != nil {
			t.Errorf("Preset(%q).ForCPUs(8).Validate() = %v", name, err)
		}
	}
	if _, err := Preset("v6.7"); err == nil || err.Error() != `cfs: unknown preset "v6.7" (known: v6.5, v6.6, v6.18, v7.1)` {
		t.Errorf("Preset(v6.7) error = %v", err)
	}
	if DefaultParams() != vparams(V65) {
		t.Errorf("DefaultParams() is not the v6.5 preset")
	}
}

// TestValidate lists Params that Validate refuses, each from a valid preset with one field
// changed, and the error it names.
func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		v    Version
		edit func(p *Params)
		want string // "" for valid
	}{
		{"v6.5 preset", V65, func(p *Params) {}, ""},
		{"v6.5 with FavorNonIdleTick", V65, func(p *Params) { p.FavorNonIdleTick = true }, ""},
		{"v7.1 without DelayDequeue", V71, func(p *Params) { p.DelayDequeue = false }, ""},
		{"version 0", V65, func(p *Params) { p.Version = 0 }, "cfs: Params.Version 0 is not V65, V66, V618 or V71"},
		{"version 9", V65, func(p *Params) { p.Version = 9 }, "cfs: Params.Version 9 is not"},
		{"version 5", V65, func(p *Params) { p.Version = V71 + 1 }, "cfs: Params.Version 5 is not V65, V66, V618 or V71"},
		{"v6.18 preset", V618, func(p *Params) {}, ""},
		{"v6.18 with a latency", V618, func(p *Params) { p.Latency = 6_000_000 }, "cfs: Params.Latency has no meaning in v6.18"},
		{"v6.18 with DeltaDiv", V618, func(p *Params) { p.CalcDelta = DeltaDiv }, ""},
		{"calc delta", V65, func(p *Params) { p.CalcDelta = 2 }, "cfs: Params.CalcDelta 2 is not DeltaWMult or DeltaDiv"},
		{"scaling", V65, func(p *Params) { p.Scaling = 3 }, "cfs: Params.Scaling 3"},
		{"groups", V65, func(p *Params) { p.SMP.Groups = 2 }, "cfs: Params.SMP.Groups 2"},
		{"migration cost", V65, func(p *Params) { p.SMP.MigrationCost = -2 }, "cfs: Params.SMP.MigrationCost -2 is below -1"},
		{"nr migrate", V65, func(p *Params) { p.SMP.NrMigrate = -1 }, "cfs: Params.SMP.NrMigrate -1 is negative"},
		{"latency over 1 s", V65, func(p *Params) { p.Latency = 1_000_000_001 }, "cfs: Params.Latency 1000000001 ns is more than one second"},
		{"latency 0", V65, func(p *Params) { p.Latency = 0 }, "cfs: Params.Latency is 0 in v6.5"},
		{"min granularity 0", V65, func(p *Params) { p.MinGranularity = 0 }, "cfs: Params.MinGranularity is 0 in v6.5"},
		{"nr latency 0", V65, func(p *Params) { p.NrLatency = 0 }, "cfs: Params.NrLatency is 0 in v6.5"},
		{"v6.5 with PlaceLag", V65, func(p *Params) { p.PlaceLag = true }, "cfs: Params.PlaceLag has no meaning in v6.5: an EEVDF parameter"},
		{"v6.5 with a slice", V65, func(p *Params) { p.DefaultSlice = 700_000 }, "cfs: Params.DefaultSlice has no meaning in v6.5"},
		{"v6.5 with MigrateDelayed", V65, func(p *Params) { p.SMP.MigrateDelayed = true }, "cfs: Params.SMP.MigrateDelayed has no meaning in v6.5"},
		{"v6.6 with FavorNonIdleTick", V66, func(p *Params) { p.FavorNonIdleTick = true }, "cfs: Params.FavorNonIdleTick has no meaning in v6.6: a classic CFS parameter"},
		{"v7.1 with FavorNonIdleTick", V71, func(p *Params) { p.FavorNonIdleTick = true }, "cfs: Params.FavorNonIdleTick has no meaning in v7.1"},
		{"v7.1 with a latency", V71, func(p *Params) { p.Latency = 6_000_000 }, "cfs: Params.Latency has no meaning in v7.1"},
		{"v7.1 with ChildRunsFirst", V71, func(p *Params) { p.ChildRunsFirst = true }, "cfs: Params.ChildRunsFirst has no meaning in v7.1"},
		{"v7.1 slice 0", V71, func(p *Params) { p.DefaultSlice = 0 }, "cfs: Params.DefaultSlice is 0 in v7.1"},
		{"v7.1 tick 0", V71, func(p *Params) { p.Tick = 0 }, "cfs: Params.Tick is 0 in v7.1"},
		{"v6.6 normalized slice 0", V66, func(p *Params) { p.NormalizedSlice = 0 }, "cfs: Params.NormalizedSlice is 0 in v6.6"},
		{"v6.6 with DelayDequeue", V66, func(p *Params) { p.DelayDequeue = true }, "cfs: Params.DelayDequeue has no meaning in v6.6: a feature of v6.12 and later"},
		{"v6.6 with MigrateDelayed", V66, func(p *Params) { p.SMP.MigrateDelayed = true }, "cfs: Params.SMP.MigrateDelayed has no meaning in v6.6"},
		{"v6.6 with MigrateIneligible", V66, func(p *Params) { p.SMP.MigrateIneligible = true }, ""},
	}
	for _, tc := range tests {
		p := vparams(tc.v)
		tc.edit(&p)
		err := p.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: Validate() = %v, want %q...", tc.name, err, tc.want)
		}
		s, err2 := New(p)
		if (err2 == nil) != (tc.want == "") || (err2 != nil && err2.Error() != err.Error()) || (err2 == nil && s == nil) {
			t.Errorf("%s: New() = %v, %v; want the error of Validate (%v)", tc.name, s, err2, err)
		}
	}
}
