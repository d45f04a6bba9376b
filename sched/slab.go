package sched

// This file implements Slab, the allocator of per-thread records that policies use at Fork.

// Slab hands out zeroed records of type T from chunks it allocates a few at a time, so that a
// policy creating a hundred thousand threads makes a few hundred allocations instead of one
// per thread (and the garbage collector tracks a few hundred objects). The chunks grow from
// slabFirst records to slabMax, so that a machine of a few threads does not pay for a large
// chunk.
//
// A record is never freed on its own: a chunk stays allocated while any of its records is
// reachable, so an exited thread's record lives as long as its neighbours'. Records do not
// move: a pointer New returned stays valid.
//
// The zero value is an empty Slab, ready to use. Each System keeps its own and must not copy
// it (a copy would hand out the same records again); a Slab is not safe for concurrent use.
type Slab[T any] struct {
	free []T // the rest of the current chunk
	size int // the size of the last chunk allocated
}

// Sizes of a Slab's chunks: the first, and the largest (records of a few hundred bytes make
// chunks of about 100 KiB).
const (
	slabFirst = 8
	slabMax   = 256
)

// New returns a pointer to a new zeroed T.
func (s *Slab[T]) New() *T {
	if len(s.free) == 0 {
		s.size = min(max(2*s.size, slabFirst), slabMax)
		s.free = make([]T, s.size)
	}
	t := &s.free[0]
	s.free = s.free[1:]
	return t
}
