// This file implements Level, the kinds of sharing a group stands for, and
// the FreeBSD cpu_group share levels and flags derived from them.

package topology

import "fmt"

// A Level is a kind of sharing between CPUs, from the closest (SMT: the
// hardware threads of one core) to the loosest (Machine: every CPU). Levels
// are ordered: a group of a lower level always lies inside one group of each
// higher level.
type Level uint8

// The levels, lowest first.
const (
	// SMT groups are cores: the hardware threads of one core, which share
	// its execution units and L1 caches (Linux SMT domain, FreeBSD
	// CG_FLAG_THREAD group).
	SMT Level = iota
	// Cluster groups are cores that share an L2 cache or a cluster
	// interconnect, such as the four E-cores of an Intel hybrid part
	// (Linux CLS domain).
	Cluster
	// LLC groups share the last-level cache (Linux MC domain and
	// SD_SHARE_LLC, FreeBSD CG_SHARE_L3).
	LLC
	// Node groups are NUMA nodes: CPUs with the same distance to every
	// memory bank (Linux NODE domain, FreeBSD CG_FLAG_NODE).
	Node
	// Package groups are the CPUs of one socket (Linux PKG, once DIE).
	Package
	// Machine is the single group of every CPU, the root of the tree.
	Machine
)

// NumLevels is the number of levels.
const NumLevels = int(Machine) + 1

var levelNames = [NumLevels]string{"smt", "cluster", "llc", "node", "package", "machine"}

// String returns the lower-case name of l: "smt", "cluster", "llc", "node",
// "package" or "machine".
func (l Level) String() string {
	if int(l) < NumLevels {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", uint8(l))
}

// ParseLevel returns the level whose [Level.String] is name.
func ParseLevel(name string) (Level, error) {
	for i, n := range levelNames {
		if n == name {
			return Level(i), nil
		}
	}
	return 0, fmt.Errorf("topology: unknown level %q (want smt, cluster, llc, node, package or machine)", name)
}

// MarshalText returns the name of l; it makes a Level a JSON string.
func (l Level) MarshalText() ([]byte, error) {
	if int(l) >= NumLevels {
		return nil, fmt.Errorf("topology: cannot marshal %v", l)
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText sets l to the level named by text.
func (l *Level) UnmarshalText(text []byte) error {
	v, err := ParseLevel(string(text))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// A LevelSet is a set of levels, bit l standing for Level l. A group that
// stands for several levels at once (a package that is also one NUMA node)
// carries them all.
type LevelSet uint8

// Has reports whether l is in s.
func (s LevelSet) Has(l Level) bool { return s&(1<<l) != 0 }

// Lowest returns the lowest level of s, or false if s is empty.
func (s LevelSet) Lowest() (Level, bool) {
	for l := range Level(NumLevels) {
		if s.Has(l) {
			return l, true
		}
	}
	return 0, false
}

// Highest returns the highest level of s, or false if s is empty.
func (s LevelSet) Highest() (Level, bool) {
	for l := Machine; ; l-- {
		if s.Has(l) {
			return l, true
		}
		if l == 0 {
			return 0, false
		}
	}
}

// String returns the levels of s joined by "+", lowest first, such as
// "node+package".
func (s LevelSet) String() string {
	out := ""
	for l := range Level(NumLevels) {
		if s.Has(l) {
			if out != "" {
				out += "+"
			}
			out += l.String()
		}
	}
	return out
}

// A ShareLevel is FreeBSD's cg_level: the highest cache level all CPUs of a
// cpu_group share (sys/sys/smp.h CG_SHARE_*). ULE scales its cache-affinity
// window by it (SCHED_AFFINITY).
type ShareLevel int8

// The share levels of sys/sys/smp.h.
const (
	ShareNone ShareLevel = 0 // CG_SHARE_NONE
	ShareL1   ShareLevel = 1 // CG_SHARE_L1
	ShareL2   ShareLevel = 2 // CG_SHARE_L2
	ShareL3   ShareLevel = 3 // CG_SHARE_L3
)

// String returns the FreeBSD name, such as "CG_SHARE_L3".
func (s ShareLevel) String() string {
	switch s {
	case ShareNone:
		return "CG_SHARE_NONE"
	case ShareL1, ShareL2, ShareL3:
		return fmt.Sprintf("CG_SHARE_L%d", int8(s))
	}
	return fmt.Sprintf("ShareLevel(%d)", int8(s))
}

// GroupFlags are FreeBSD's cg_flags (sys/sys/smp.h CG_FLAG_*).
type GroupFlags int8

// The flags of sys/sys/smp.h. ULE tests FlagThread, that is either bit.
const (
	FlagHTT    GroupFlags = 0x1               // CG_FLAG_HTT: Intel hyper-threads
	FlagSMT    GroupFlags = 0x2               // CG_FLAG_SMT: SMT threads (what x86 cpu_topo sets)
	FlagThread            = FlagHTT | FlagSMT // CG_FLAG_THREAD: any SMT group
	FlagNode   GroupFlags = 0x4               // CG_FLAG_NODE: a NUMA node
)

// String returns the set flags by their FreeBSD names joined by "|", or "0".
func (f GroupFlags) String() string {
	out := ""
	add := func(n string) {
		if out != "" {
			out += "|"
		}
		out += n
	}
	if f&FlagHTT != 0 {
		add("CG_FLAG_HTT")
	}
	if f&FlagSMT != 0 {
		add("CG_FLAG_SMT")
	}
	if f&FlagNode != 0 {
		add("CG_FLAG_NODE")
	}
	if rest := f &^ (FlagThread | FlagNode); rest != 0 {
		add(fmt.Sprintf("%#x", int8(rest)))
	}
	if out == "" {
		return "0"
	}
	return out
}
