// Package topology describes the CPUs of a machine and what they share, as
// the data FreeBSD's ULE and Linux's fair scheduler decide over: a tree of
// groups (SMT cores, clusters, last-level caches, NUMA nodes, packages, the
// machine), NUMA distances, per-CPU capacity, and the Linux view of the
// same tree as per-CPU chains of scheduling domains.
package topology
