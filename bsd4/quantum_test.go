package bsd4_test

import (
	"math"
	"testing"

	"github.com/schedkit/schedkit/bsd4"
)

// SliceTick follows sched_clock_tick (@e2650af1): --ts_slice <= 0 refills it with sched_slice.
// SwitchTick follows FreeBSD 9-era sched_clock (rayddteam/freebsd-pi @282184e1):
// ticks - switchticks >= sched_quantum.

func TestSliceTick(t *testing.T) {
	tests := []struct {
		name        string
		slice, full int32
		want        bsd4.TickReason
	}{
		{"fresh slice", 12, 12, bsd4.TickReason{Mode: bsd4.SliceQuantum, Left: 11, Limit: 12}},
		{"last tick", 1, 12, bsd4.TickReason{Mode: bsd4.SliceQuantum, Expired: true, Left: 12, Limit: 12}},
		{"two left", 2, 12, bsd4.TickReason{Mode: bsd4.SliceQuantum, Left: 1, Limit: 12}},
		{"already zero", 0, 12, bsd4.TickReason{Mode: bsd4.SliceQuantum, Expired: true, Left: 12, Limit: 12}},
		{"negative", -5, 12, bsd4.TickReason{Mode: bsd4.SliceQuantum, Expired: true, Left: 12, Limit: 12}},
		{"zero sched_slice expires every tick", 0, 0, bsd4.TickReason{Mode: bsd4.SliceQuantum, Expired: true, Left: 0, Limit: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expired, got := bsd4.SliceTick(tc.slice, tc.full)
			if got != tc.want || expired != tc.want.Expired {
				t.Errorf("SliceTick(%d, %d) = %t, %+v; want %+v", tc.slice, tc.full, expired, got, tc.want)
			}
		})
	}
}

func TestSwitchTick(t *testing.T) {
	tests := []struct {
		name                  string
		ticks, switched, quan int32
		want                  bsd4.TickReason
	}{
		{"just switched", 10, 10, 100, bsd4.TickReason{Mode: bsd4.SwitchQuantum, Left: 100, Limit: 100}},
		{"one short", 109, 10, 100, bsd4.TickReason{Mode: bsd4.SwitchQuantum, Left: 1, Limit: 100}},
		{"quantum used", 110, 10, 100, bsd4.TickReason{Mode: bsd4.SwitchQuantum, Expired: true, Left: 0, Limit: 100}},
		{"overdue", 150, 10, 100, bsd4.TickReason{Mode: bsd4.SwitchQuantum, Expired: true, Left: -40, Limit: 100}},
		{"ticks wrapped", math.MinInt32 + 5, math.MaxInt32 - 4, 100, bsd4.TickReason{Mode: bsd4.SwitchQuantum, Left: 90, Limit: 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expired, got := bsd4.SwitchTick(tc.ticks, tc.switched, tc.quan)
			if got != tc.want || expired != tc.want.Expired {
				t.Errorf("SwitchTick(%d, %d, %d) = %t, %+v; want %+v", tc.ticks, tc.switched, tc.quan, expired, got, tc.want)
			}
		})
	}
}
