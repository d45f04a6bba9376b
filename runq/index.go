package runq

import "strconv"

// NumQueues is the number of queues in a [Runq]: RQ_NQS in FreeBSD's sys/sys/runq.h.
const NumQueues = 256

// An Index names one of the [NumQueues] queues. Index 0 is the most important queue and 255
// the least. An Index is a uint8, so it cannot be out of range; the kernel's int index and its -1
// "none" become an Index and a comma-ok bool here.
type Index uint8

// MaxIndex is the last queue, [NumQueues]-1.
const MaxIndex Index = NumQueues - 1

// A Range is the queues Lo through Hi, both bounds included. The bounds are inclusive, as
// FreeBSD's lvl_min and lvl_max are, because a half-open range over a uint8 could not name
// queue 255. A Range with Lo > Hi is invalid: every search given one panics.
type Range struct {
	Lo, Hi Index
}

// FullRange returns the Range of every queue, 0 through [MaxIndex].
func FullRange() Range { return Range{Lo: 0, Hi: MaxIndex} }

// Valid reports whether r.Lo <= r.Hi.
func (r Range) Valid() bool { return r.Lo <= r.Hi }

// Contains reports whether i lies in r.
func (r Range) Contains(i Index) bool { return r.Lo <= i && i <= r.Hi }

// Len returns the number of queues in r, from 1 to [NumQueues]. Len panics if r is invalid.
func (r Range) Len() int {
	r.mustBeValid("Range.Len")
	return int(r.Hi) - int(r.Lo) + 1
}

// String formats r as "lo..hi", for example "56..223".
func (r Range) String() string {
	return strconv.Itoa(int(r.Lo)) + ".." + strconv.Itoa(int(r.Hi))
}

// mustBeValid panics, naming the caller, if r.Lo > r.Hi.
func (r Range) mustBeValid(caller string) {
	if r.Lo > r.Hi {
		panic("runq: " + caller + ": inverted range " + r.String())
	}
}
