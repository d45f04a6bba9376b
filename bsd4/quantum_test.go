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
		want        bsd4.Expiry
	}{
		{"fresh slice", 12, 12, bsd4.Expiry{Mode: bsd4.SliceQuantum, Left: 11, Limit: 12}},
		{"last tick", 1, 12, bsd4.Expiry{Mode: bsd4.SliceQuantum, Expired: true, Left: 12, Limit: 12}},
		{"two left", 2, 12, bsd4.Expiry{Mode: bsd4.SliceQuantum, Left: 1, Limit: 12}},
		{"already zero", 0, 12, bsd4.Expiry{Mode: bsd4.SliceQuantum, Expired: true, Left: 12, Limit: 12}},
		{"negative", -5, 12, bsd4.Expiry{Mode: bsd4.SliceQuantum, Expired: true, Left: 12, Limit: 12}},
		{"zero sched_slice expires every tick", 0, 0, bsd4.Expiry{Mode: bsd4.SliceQuantum, Expired: true, Left: 0, Limit: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.SliceTick(tc.slice, tc.full); got != tc.want {
				t.Errorf("SliceTick(%d, %d) = %+v, want %+v", tc.slice, tc.full, got, tc.want)
			}
		})
	}
}

func TestSwitchTick(t *testing.T) {
	tests := []struct {
		name                  string
		ticks, switched, quan int32
		want                  bsd4.Expiry
	}{
		{"just switched", 10, 10, 100, bsd4.Expiry{Mode: bsd4.SwitchQuantum, Left: 100, Limit: 100}},
		{"one short", 109, 10, 100, bsd4.Expiry{Mode: bsd4.SwitchQuantum, Left: 1, Limit: 100}},
		{"quantum used", 110, 10, 100, bsd4.Expiry{Mode: bsd4.SwitchQuantum, Expired: true, Left: 0, Limit: 100}},
		{"overdue", 150, 10, 100, bsd4.Expiry{Mode: bsd4.SwitchQuantum, Expired: true, Left: -40, Limit: 100}},
		{"ticks wrapped", math.MinInt32 + 5, math.MaxInt32 - 4, 100, bsd4.Expiry{Mode: bsd4.SwitchQuantum, Left: 90, Limit: 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := bsd4.SwitchTick(tc.ticks, tc.switched, tc.quan); got != tc.want {
				t.Errorf("SwitchTick(%d, %d, %d) = %+v, want %+v", tc.ticks, tc.switched, tc.quan, got, tc.want)
			}
		})
	}
}
