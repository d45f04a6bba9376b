package groupsums

import "github.com/schedkit/schedkit/topology"

// Type is a group's group_type as placement reads it from the sums, with cfs's values (the
// kernel's order): a group with no imbalance flag and no misfit load is one of these three.
type Type uint8

// The group types a placement reads from the sums.
const (
	// HasSpare is group_has_spare.
	HasSpare Type = 0
	// FullyBusy is group_fully_busy.
	FullyBusy Type = 1
	// Overloaded is group_overloaded.
	Overloaded Type = 4
)

// A Key is a group's place in update_pick_idlest's order, as two words compared in turn: a
// group is idler than another exactly when its Key is less ([Key.Less]). Hi holds group_type
// above bit 32; for a group with spare capacity it holds the complement of idle_cpus below,
// and Lo group_util (more idle CPUs, then less utilisation, is idler); for a fully busy or
// overloaded group Hi holds the type alone and Lo avg_load. The type, and what the end of
// find_idlest_group compares for it (idle_cpus, avg_load), are read back from the Key.
type Key struct {
	Hi, Lo uint64
}

// Wake returns the Key of the end of update_sg_wakeup_stats for a group whose sums are s, of
// capacity c (sgc->capacity, not 0) and weight w CPUs, in a domain of imbalance_pct pct:
// group_classify without an imbalance flag or a misfit load (group_is_overloaded: more tasks
// than CPUs and utilisation or runnable time beyond capacity by pct; else the negation of
// group_has_capacity: at least as many tasks as CPUs and runnable time or utilisation at
// capacity by pct), then avg_load = group_load*SCHED_CAPACITY_SCALE/capacity for a fully busy
// or overloaded group. The arithmetic is the kernel's, in unsigned 64 bits.
func (s *Sum) Wake(c uint64, w uint32, pct uint64) Key {
	var t uint64
	if s.NrRunning > w && (c*100 < s.Util*pct || c*pct < s.Runnable*100) {
		t = uint64(Overloaded) << 32
	} else if s.NrRunning >= w && (c*pct < s.Runnable*100 || c*100 <= s.Util*pct) {
		t = uint64(FullyBusy) << 32
	} else {
		return Key{Hi: uint64(^s.Idle), Lo: s.Util}
	}
	return Key{Hi: t, Lo: s.Load * topology.CapacityScale / c}
}

// Less reports whether update_pick_idlest takes a group of Key k over the idlest so far, of
// Key i: for a lower type; of the same type, for a lower avg_load (fully busy, overloaded),
// or for more idle CPUs and of as many for a lower utilisation (spare capacity).
func (k Key) Less(i Key) bool { return k.Hi < i.Hi || k.Hi == i.Hi && k.Lo < i.Lo }

// Type returns the group's type.
func (k Key) Type() Type { return Type(k.Hi >> 32) }

// AvgLoad returns the group's avg_load: 0 for a group with spare capacity, whose avg_load
// update_sg_wakeup_stats leaves unset.
func (k Key) AvgLoad() uint64 {
	if k.Type() == HasSpare {
		return 0
	}
	return k.Lo
}

// Idle returns the group's idle_cpus for a group with spare capacity, the only type for which
// find_idlest_group reads them; 0 for the others.
func (k Key) Idle() uint32 {
	if k.Type() == HasSpare {
		return ^uint32(k.Hi)
	}
	return 0
}

// Root is the Key find_idlest_group starts from (idlest_sgs): an overloaded group of
// avg_load UINT_MAX, which no group of a greater avg_load displaces.
var Root = Key{Hi: uint64(Overloaded) << 32, Lo: 1<<32 - 1}

// OneCPU returns the sums of a group of the one CPU whose figures are st, as Update would
// keep them (the Index keeps no group of one CPU).
func OneCPU(st Stat) Sum {
	return Sum{Load: st.Load, Util: st.Util, Runnable: st.Runnable, NrRunning: st.NrRunning,
		HNrRunning: st.HNrRunning, Idle: b2u(st.NrRunning == 0), Multi: b2u(st.NrRunning > 1)}
}
