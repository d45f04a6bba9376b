package bsd4_test

import (
	"testing"

	"github.com/schedkit/schedkit/bsd4"
)

// Expected values are worked out from loadav in kern_synch.c: ldavg[i] = (cexp[i]·ldavg[i] +
// nrun·FSCALE·(FSCALE − cexp[i])) >> FSHIFT with cexp = {1884, 2014, 2036}, in uint64_t in
// current kernels (OlCe2/freebsd-src @fc4e6fb7) and in u_int in FreeBSD 9 (@282184e1).

func TestLoadAvgUpdate(t *testing.T) {
	tests := []struct {
		name         string
		in           bsd4.LoadAvg
		nrun         int
		want, want32 bsd4.LoadAvg
	}{
		// 1·2048·164 >> 11 = 164; 2048·34 >> 11 = 34; 2048·12 >> 11 = 12.
		{"first sample of one thread", bsd4.LoadAvg{}, 1, bsd4.LoadAvg{164, 34, 12}, bsd4.LoadAvg{164, 34, 12}},
		{"nothing runs", bsd4.LoadAvg{2048, 2048, 2048}, 0, bsd4.LoadAvg{1884, 2014, 2036}, bsd4.LoadAvg{1884, 2014, 2036}},
		{"fixed point at 1.00", bsd4.LoadAvg{2048, 2048, 2048}, 1, bsd4.LoadAvg{2048, 2048, 2048}, bsd4.LoadAvg{2048, 2048, 2048}},
		// 13000·2048·164 = 4,366,336,000 >> 11 = 2,132,000 (1041.02) in 64 bits; in u_int it
		// wraps to 71,368,704, which shifts to 34,848 (17.02).
		{"u_int overflow", bsd4.LoadAvg{}, 13000, bsd4.LoadAvg{2132000, 442000, 156000}, bsd4.LoadAvg{34848, 442000, 156000}},
		// 1100 runnable at 1100.00 (2,252,800): in 64 bits a fixed point. In u_int each sum
		// is 4,613,734,400 and wraps to 318,767,104 (1884·2,252,800 + 1100·2048·164, and the
		// same total for the other two), which shifts to 155,648: 76.00.
		{"steady 1100", bsd4.LoadAvg{2252800, 2252800, 2252800}, 1100, bsd4.LoadAvg{2252800, 2252800, 2252800}, bsd4.LoadAvg{155648, 155648, 155648}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.Update(tc.nrun); got != tc.want {
				t.Errorf("%v.Update(%d) = %v, want %v", tc.in, tc.nrun, got, tc.want)
			}
			if got := tc.in.Update32(tc.nrun); got != tc.want32 {
				t.Errorf("%v.Update32(%d) = %v, want %v", tc.in, tc.nrun, got, tc.want32)
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

// TestLoadavIntervalTicks follows FreeBSD 9's loadav (kern_synch.c @282184e1): the next sample
// comes hz·4 + random() % (hz·2 + 1) ticks later, so in whole ticks.
func TestLoadavIntervalTicks(t *testing.T) {
	for _, tc := range []struct {
		r    uint64
		hz   int
		want int64
	}{
		{0, 1000, 4_000_000_000}, {2000, 1000, 6_000_000_000}, {2001, 1000, 4_000_000_000},
		{1, 1000, 4_001_000_000}, {7, 100, 4_070_000_000}, {1, 128, 4_007_812_500},
	} {
		if got := bsd4.LoadavIntervalTicks(tc.r, tc.hz); got != tc.want {
			t.Errorf("LoadavIntervalTicks(%d, %d) = %d, want %d", tc.r, tc.hz, got, tc.want)
		}
	}
}
