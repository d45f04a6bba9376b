// Package stat turns repeated measurements into verdicts a scheduler person already trusts:
// ministat's table and "Difference at 95.0% confidence" lines, digit for digit, and the tests
// beyond ministat a careful comparison needs.
//
// [Summarize] computes a data set's [Summary] (N, Min, Max, Median, Avg, Stddev) exactly as
// ministat does; [Student] compares two summaries with Student's t and pooled s, using
// ministat's own table of critical values ([TableT]), so its difference, ± and pooled s are the
// ones ministat prints. [Welch] drops the equal-variance assumption, with [TQuantile] giving the
// t quantile for any degrees of freedom.
//
// Names in ministat (usr.bin/ministat/ministat.c) and ours:
//
//	struct dataset, AddPoint      Dataset, Dataset.Add
//	Min, Max, Median, Avg, Stddev Summary.Min, .Max, .Median, .Mean, .Stddev
//	Var                           Summary.Variance
//	student[][], studentpct[]     TableT, Levels
//	Relative                      Student (Difference.Delta, .HalfWidth, .Rel, .RelHalfWidth, .PooledS)
package stat
