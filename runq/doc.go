// Package runq implements FreeBSD-style run queues: 256 FIFO queues, 0 being the highest
// priority, and a status bitmap whose bit i is set exactly when queue i is non-empty.
//
// This is the run queue of FreeBSD main after the 2025 rework (sys/sys/runq.h and
// sys/kern/kern_switch.c; reviews D45387-D45393), written as a generic, allocation-free Go data
// structure. Both of FreeBSD's schedulers are built on it: 4BSD keeps one global [Runq] plus one
// per CPU for pinned threads, ULE one per CPU whose index ranges play different roles (realtime,
// a circular timeshare calendar, idle).
//
// # Model
//
// A [Runq] holds [NumQueues] queues indexed by an [Index] (a uint8, so no index is out of
// range). Queue 0 runs first. Within a queue, elements leave in arrival order, except that
// [Runq.AddHead] puts an element at the front: a thread that was preempted goes back to the head
// of its queue, so it resumes before threads of equal priority that were waiting behind it.
//
// Beside the queues sits a [Status]: four 64-bit words, one bit per queue. The invariant
//
//	status.Has(i) ⇔ queue i is non-empty
//
// holds after every operation (the tests check it after every mutation). It is what makes the
// choice of the next thread cheap: the first non-empty queue is the first set bit, found with one
// count-trailing-zeros instruction per word (bits.TrailingZeros64, FreeBSD's RQSW_BSF).
//
// Elements are intrusive: the caller embeds a [Link] in its own type and binds it once with
// [Link.Init]. Adding and removing only rewire pointers inside the elements and the Runq, so no
// operation allocates, as in the kernel, where the list entry td_runq lives in struct thread.
//
// # Searching
//
// There is one search primitive, [Runq.Find], with the contract of runq_findq: given an
// inclusive [Range] of queues and a predicate, it offers the non-empty queues of the range to the
// predicate in ascending order, each at most once, and stops at the first queue the predicate
// accepts. The predicate sees the whole [Queue], so it may select any element of it (not only the
// head), or decline, and the search goes on. Empty queues cost nothing: the scan masks the first
// and last status words to the range and walks set bits only.
//
// Everything else that searches is built on Find:
//   - [Runq.FirstIn]: the head of the first non-empty queue in a range (runq_first_thread_range);
//   - [Runq.Steal]: the first element, in queue and FIFO order, that passes a test (ULE's stealing
//     predicate, runq_steal_pred);
//   - [Runq.FindCircular]: a scan from a start index to the end of a range, then from the range's
//     start up to just before the start index. The two parts are disjoint ranges, so nothing is
//     offered twice. ULE's timeshare calendar needs exactly this.
//
// [Runq.Choose], the first element of the first non-empty queue, is [Status.First] plus a load of
// the queue's head: the hot path of every scheduler, kept small enough to inline.
//
// # Legacy layout
//
// Before the rework a run queue had 64 queues and each held four adjacent priorities (RQ_PPQ =
// 4). [Fold] expresses both layouts: [LegacyFold] maps priority p to queue p/4, [NoFold] to queue
// p. Folding is why the rework happened (seed 003): the 32 POSIX SCHED_FIFO/SCHED_RR levels map
// to 32 consecutive priorities, which the legacy fold squeezes into 8 queues, so threads whose
// POSIX priorities differ were queued as equals. See [ExampleFold].
//
// # Snapshots for the course
//
// [Runq.Snapshot] returns a [State], plain JSON-friendly data: the four status words in
// hexadecimal and each non-empty queue's elements in order. [Trace] wraps a search's predicate so
// that a [Search] records the range and every queue offered with the predicate's answer, while
// [Runq.Find] itself runs unchanged. Both only read the Runq; they allocate, so they sit beside
// a decision, never inside one.
//
// # Cost
//
//	operation                           cost
//	Add, AddHead, Remove                O(1); inlined at the call site
//	Choose                              O(NumQueues/64) = at most 4 word tests; inlined
//	Find, FirstIn, FindCircular, Steal  O(r.Len()/64) word tests + one predicate call per non-empty queue visited
//	Len, Empty, IsQueueEmpty            O(1)
//	Queue.Len                           O(length of that queue)
//	Status.Set, Clear, Has              O(1); Count, First, After, FirstIn: O(NumQueues/64)
//
// No operation allocates; TestZeroAllocs enforces it. The README gives measured figures against
// container/heap, a typed binary heap and a linear scan of 256 lists.
//
// # Concurrency
//
// A Runq is not safe for concurrent use. In the kernel the queue belongs to a CPU and its lock
// (ULE's tdq_lock, 4BSD's sched_lock) serialises every call; here the caller provides the same
// discipline. A Runq must not be copied once used (go vet reports copies), and a [Link] must not
// be copied while its element is queued.
//
// # Misuse
//
// Programming errors panic with a message that starts with "runq: ": adding an element that is
// already queued (on this or another Runq) or whose link was never bound, removing an element that
// is not on this Runq, and searching an inverted range. Each Link records the Runq that holds
// it, which makes these checks O(1) and keeps a scheduler bug from silently corrupting a queue.
//
// # Design notes
//
// The queue is a circular doubly linked list through a root link, as container/list's is, so that
// Remove unlinks without a branch and learns whether the queue became empty from the link's own
// neighbours (both are the root). A never-used root is zero, which keeps the zero Runq ready to
// use: Add links the first element between the root and itself, which writes both of the root's
// pointers, so first use costs no separate initialisation.
//
// The hot path is written for the instruction count. Every pointer store in Go carries a
// write-barrier check, but consecutive stores in one basic block share one; so Add and Remove do
// all their loads and nil checks first and their stores together (one check each, not three), and
// Remove clears only the owner, the one field that says whether a link is queued (a removed
// element keeps stale neighbour pointers until it is added again, as a removed TAILQ entry does
// in the kernel). Under callgrind, choose + remove + add costs 69 instructions at n = 256 with a
// fixed priority and 87 with a random one (from 89 and 108 before; FreeBSD's own kern_switch.c
// built as the kernel links it, with kernel flags: 69 and 87), misuse checks included. CI fails
// if either count rises (scripts/icount); Add's inlining cost is at the budget of 80, and CI
// also fails if a hot operation stops inlining.
//
// Operations take the *Link rather than the *T. The alternative, a constraint
// Runq[T, PT interface{ *T; link() *Link[T] }], reads better at the call site but each link()
// goes through the generic dictionary and cannot inline; measured on Go 1.26 it made
// choose+remove+add 9 ns instead of 5. Links point back to their element, so searches still hand
// out *T.
//
// Per-queue element counts were also left out: one more increment on every Add and Remove
// pushed Remove over the inliner's budget. [Queue.Len] counts by walking; [Runq.Len] is O(1).
//
// # FreeBSD names
//
//	FreeBSD (sys/sys/runq.h, kern_switch.c, sched_ule.c)   schedkit
//	RQ_NQS                                                  NumQueues
//	RQ_PPQ, RQ_PRI_TO_QUEUE_IDX                             Fold, Fold.Index
//	struct runq                                             Runq
//	struct rq_queue (TAILQ of threads)                      Queue
//	td_runq, td_rqindex                                     Link, Link.Index
//	rq_status.rq_sw[RQSW_NB], rqsw_t                        Status
//	RQSW_BSF (ffsl - 1)                                     bits.TrailingZeros64 in Status.First/FirstIn and Find
//	runq_init                                               the zero value
//	runq_add, runq_add_idx                                  Runq.Add
//	runq_add_idx with SRQ_PREEMPTED                         Runq.AddHead
//	runq_remove (returns whether the queue became empty)    Runq.Remove
//	runq_is_queue_empty                                     Runq.IsQueueEmpty
//	runq_not_empty                                          !Runq.Empty
//	runq_findq, runq_pred_t                                 Runq.Find, Pred
//	runq_first_thread_range                                 Runq.FirstIn
//	runq_choose                                             Runq.Choose
//	runq_steal_pred over runq_findq (sched_ule.c)           Runq.Steal, Queue.FirstMatch
//	tdq_choose / tdq_steal's two timeshare findq calls      Runq.FindCircular
//	runq_choose_fuzz (4BSD)                                 Runq.Find with a predicate (see ExampleRunq_Find)
//	legacy runq_findbit, runq_findbit_from                  Status.First, Status.FirstIn / Runq.FindCircular
//	legacy runq_choose_from, runq_remove_idx                see package ule, which keeps its calendar offsets itself
package runq
