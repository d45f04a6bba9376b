// Package loadindex holds the fast forms of ULE's searches of the CPU topology
// (cpu_search_lowest, cpu_search_highest) for large machines, and the index of every CPU's load
// they read. Package ule's kernel-shaped searches are the reference: ule calls an Index in their
// place on machines of ule's index size or more (see ule's package documentation), and every
// function here returns what the kernel's loop returns, leaves sched_random's state where the
// kernel's loop leaves it, and draws the same numbers in the same order.
//
// # The index
//
// An Index records, for every CPU, the facts of its CPULoad that decide the searches, as the CPU's
// owner changes them through the CPU's Slot (SetLowPri, LoadUp, LoadDown, and the count of
// transferable threads), in masks of 64 CPUs a word: bit planes of LowPri, levels of Load (the
// CPUs whose load is at least k), the CPUs with a transferable thread and their count, and on
// machines of SMT pairs numbered side by side the pairs' total loads as levels, each group of
// pairs' total and each group of such groups' total; on machines of more than 64 ids, the number
// of CPUs at each LowPri value. A question about every CPU (which run worse than a priority, which have the least
// load among some) is then a few word operations per 64 CPUs. On a machine of packages of
// last-level caches of SMT pairs it also keeps, at each level, the least total and the members
// at it (tied.go): of each node of packages, its packages; of each package, its caches; of each
// cache, its pairs, and the least load of those pairs' CPUs with the CPUs at it; a search with
// every CPU acceptable reads them where it would compare every total.
//
// # Draws without the loop
//
// The kernel's loops draw sched_random once per acceptable CPU, in visiting order, and since a
// draw changes a CPU's compared load by less than one thread's 256, only the CPUs at the least
// (lowest) or greatest (highest) load can win. k steps of the linear congruential generator
// x*69069+5 are one multiply and add (drawJump), so the search counts the acceptable CPUs, moves
// the generator over all of them at once, and computes the draw of each CPU that can win at its
// place in the stream: each such CPU gets exactly the number the kernel's loop gives it, and the
// comparison keeps the kernel's strict order. The preferred CPU, favoured by 128, wins without a
// draw when no acceptable CPU has less load. A search therefore costs O(CPUs/64) word operations
// plus a draw per CPU that ties at the winning load.
//
// The same holds a level up: a group keeps the child of least total, and of equal totals the one
// whose chosen CPU has the least randomised load. So on a machine of packages of last-level
// caches of SMT pairs, a search (LowestPairGroups) first takes every group's total and count of
// acceptable CPUs (a word of priority planes per 64 CPUs, or with every CPU acceptable the counts
// kept in the tree), moves the generator over them all, and then visits only the caches of least
// total in the packages of least total, each from its own place in the stream of draws; a cache
// whose least load cannot beat the best so far draws nothing, and one none of whose acceptable
// CPUs is loaded little enough is not searched. A search for a CPU running worse than a priority
// that no CPU's LowPri exceeds ends at once, from the counts of LowPri values.
//
// # Where the index does not answer
//
// A mask that lacks CPUs of a group, a load limit (the balancer's), loads of bigLoad or more, or
// a group of another shape is searched by walking its CPUs, in loops that fuse the two bottom
// levels of the kernel's recursion (a node whose children are all leaves is one array, visited
// in the kernel's order) and skip, with the jump-ahead above, the draws of leaves that cannot be
// chosen. The loops take their data-dependent decisions (is this CPU acceptable, does its draw
// beat the best so far) by all-ones-or-zero masks instead of branches where a processor would
// mispredict them about as often as not (draw.go). Above those two levels, Lowest and Highest run
// the kernel's recursion itself over the flattened topology (search.go), so that a search ule
// hands to the index is answered whole.
//
// The steal searches (cpu_search_highest with a transferable thread required) list their
// candidates from the levels and the transferable mask: a group without a candidate is skipped
// without a draw, one whose candidates lie in one leaf is searched in that leaf alone, and only a
// group where they are spread over several leaves is walked in full; while no CPU has a
// transferable thread, every such search ends at once.
//
// Nothing here is safe for concurrent use; the Index's owner serialises its calls.
package loadindex
