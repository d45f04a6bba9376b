package ule

import "testing"

// CPUState.Slice and ThreadSlice, which derive sched_slice once, give tdq_slice and td_slice as
// SliceFor(tdq_sysload, sched_slice, sched_slice_min) and sched_slice give them: for every
// sysload from -1 to 9, derived and set slices, stathz values whose tenth is 0, 1 and more,
// with and without FixedSlice, for time-sharing and interrupt threads.
func TestSliceDerivesOnce(t *testing.T) {
	for _, statHz := range []int{0, 5, 10, 127, 128, 1000} {
		for _, slice := range []int{0, 1, 5, 12, 37} {
			for _, fixed := range []bool{false, true} {
				p := DefaultParams()
				p.StatHz, p.Slice, p.FixedSlice = statHz, slice, fixed
				c := NewCPUState(0, &p)
				for load := int32(-1); load <= 9; load++ {
					c.SysLoad = load
					want := SliceFor(int(load), p.SliceTicks(), p.SliceMinTicks())
					if fixed {
						want = p.SliceTicks()
					}
					if got := c.Slice(); got != want {
						t.Fatalf("stathz %d slice %d fixed %t sysload %d: Slice = %d, want %d", statHz, slice, fixed, load, got, want)
					}
					for _, class := range []Class{ClassTimeshare, ClassIthd, ClassRealtime} {
						w := want
						if class == ClassIthd {
							w = p.SliceTicks()
						}
						if got := c.ThreadSlice(&Thread{Class: class}); got != w {
							t.Fatalf("stathz %d slice %d fixed %t sysload %d %v: ThreadSlice = %d, want %d", statHz, slice, fixed, load, class, got, w)
						}
					}
				}
			}
		}
	}
}
