package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bsd4"
)

// Expected values are worked out from loadav in kern_synch.c: ldavg[i] = (cexp[i]·ldavg[i] +
// nrun·FSCALE·(FSCALE − cexp[i])) >> FSHIFT with cexp = {1884, 2014, 2036}, all u_int.

func TestLoadAvgUpdate(t *testing.T) {
	tests := []struct {
		name string
		in   bsd4.LoadAvg
		nrun int
		want bsd4.LoadAvg
	}{
		// 1·2048·164 >> 11 = 164; 2048·34 >> 11 = 34; 2048·12 >> 11 = 12.
		{"first sample of one thread", bsd4.LoadAvg{}, 1, bsd4.LoadAvg{164, 34, 12}},
		{"nothing runs", bsd4.LoadAvg{2048, 2048, 2048}, 0, bsd4.LoadAvg{1884, 2014, 2036}},
		{"fixed point at 1.00", bsd4.LoadAvg{2048, 2048, 2048}, 1, bsd4.LoadAvg{2048, 2048, 2048}},
		// 13000·2048·164 = 4,366,336,000 wraps to 71,368,704: the u_int sum overflows.
		{"u_int overflow", bsd4.LoadAvg{}, 13000, bsd4.LoadAvg{34848, 442000, 156000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.Update(tc.nrun); got != tc.want {
				t.Errorf("%v.Update(%d) = %v, want %v", tc.in, tc.nrun, got, tc.want)
			}
		})
	}
}

// TestLoadAvgStallsBelowOne: the truncating shift stops an average from below once
// (FSCALE − x)·(FSCALE − cexp) < FSCALE, so one always-runnable thread shows 0.99, 0.97 and
// 0.92, never 1.00.
func TestLoadAvgStallsBelowOne(t *testing.T) {
	var l bsd4.LoadAvg
	for range 1000 {
		l = l.Update(1)
	}
	if want := (bsd4.LoadAvg{2036, 1988, 1878}); l != want {
		t.Errorf("load average after 1000 samples of 1 = %v, want %v", l, want)
	}
	if got := l[0].String(); got != "0.99" {
		t.Errorf("1-minute average prints %q, want 0.99", got)
	}
}

func TestLoadavInterval(t *testing.T) {
	for _, tc := range []struct {
		r    uint64
		want int64
	}{{0, 4_000_000_000}, {2_000_000, 6_000_000_000}, {2_000_001, 4_000_000_000}, {1_000_000, 5_000_000_000}} {
		if got := bsd4.LoadavInterval(tc.r); got != tc.want {
			t.Errorf("LoadavInterval(%d) = %d, want %d", tc.r, got, tc.want)
		}
	}
}
