// Package stat turns repeated measurements into verdicts that scheduler people already trust:
// ministat's report byte for byte, mmtests' comparison tables, benchstat's tables of Go
// benchmarks, and the tests beyond them that a careful comparison needs. It is the one place in
// schedkit where numbers become "faster", "slower" or "no difference proven".
//
// # What is here
//
// ministat (FreeBSD's usr.bin/ministat, the program Debian packages as ministat):
//
//   - [Summarize] and [Dataset] compute N, Min, Max, Median, Avg and Stddev exactly as ministat
//     does; [ReadDataset] reads a data file as ministat reads it (fields, '#' comments, its line
//     numbers), refusing invalid lines and NaN or infinite values with the file and line.
//   - [Student] is ministat's "Difference at 95.0% confidence", with ministat's own table of t
//     ([TableT]); [Ministat] writes ministat's whole report: the plot, the table, the
//     comparisons. bench/cmd/ministat is a drop-in command, tested byte for byte against
//     Debian's binary.
//
// Beyond ministat: [Welch] for unequal variances and [TQuantile] for any degrees of freedom (from
// gonum's stat/distuv); [MannWhitney], a rank test that assumes no distribution; [Bootstrap] and
// [BootstrapDiff], seeded confidence intervals for medians and high percentiles ([Quantile],
// [PercentileStat]); [MinDetectable] and [RunsNeeded], the effect of N.
//
// mmtests: [Comparison] computes and prints compare-mmtests' tables (Amean, Hmean, Stddev,
// HStddev, Pctile.90, BAmean.95, … with "( 0.92%)" and "* -21.26%*" columns), as mmtests of
// 2026 prints them or, with [MMTests2022], as mmtests of October 2022 did (seed 004's
// tables), following mmtests' Perl line by line; [SummaryKind] names its summary kinds.
//
// Go benchmarks: [CompareBench] reads go test -bench output with golang.org/x/perf's benchfmt,
// groups it with benchproc and compares columns with benchmath, as benchstat does, and
// [WriteBenchTables] prints the tables in benchstat's layout (configuration lines, " │ " rules,
// benchunit's scaling, footnotes), the same bytes; bench/stat/cmd/benchtable is the command,
// tested against benchstat itself, and scripts/benchrounds uses it.
//
// Everything is a function of its inputs: no printing (reports go to the io.Writer given), no
// global state, and randomness only from the seed a caller passes, so the same call gives the
// same bytes on every run.
//
// # Why Student's t
//
// A benchmark run is a draw from a distribution nobody knows: the same kernel build takes
// 435.32 s, then 436.63 s, then 435.53 s. Comparing two kernels is asking whether their
// distributions have different means, from a handful of draws of each. The difference of the
// sample means is an estimate; its uncertainty is its standard error, s·sqrt(1/N₁ + 1/N₂),
// where s estimates the spread of a single run. If s were the true spread σ, the difference
// divided by its standard error would be normally distributed, and ±1.96 standard errors would
// be a 95% interval. But s is itself estimated from the same few runs, and with nine runs it
// can easily be too small. W. S. Gosset ("Student", 1908) worked out the distribution of the
// ratio when s is estimated: Student's t with N₁+N₂-2 degrees of freedom, whose tails are
// heavier than the normal's by exactly enough. For 9 + 9 runs the 95% critical value is 2.120,
// not 1.960; for 3 + 3 it is 2.776. That is the number ministat multiplies by, read from the
// table in its source ([TableT]), and why its intervals widen sharply when you give it fewer
// runs. t assumes that each side's runs are independent draws from a roughly normal
// distribution; build times are close enough, and the mean of many runs is close to normal
// anyway. Latencies are not (see Mann-Whitney below).
//
// # Pooled s
//
// Student's test assumes both kernels have the same run-to-run spread σ and estimates it from
// both samples at once: the pooled variance s² = ((N₁-1)s₁² + (N₂-1)s₂²) / (N₁+N₂-2), each
// sample's variance weighted by its degrees of freedom. Its square root is the "pooled s"
// ministat prints. Pooling uses all N₁+N₂-2 degrees of freedom for one estimate, which is why
// the test is sharp with few runs. When the spreads plainly differ (a patch that makes the
// build ten times noisier), pooling understates the noisier side's uncertainty; [Welch] keeps
// the two variances apart and takes its degrees of freedom from the Welch–Satterthwaite
// equation, generally not a whole number, which is why it needs [TQuantile] and not a table.
// mmtests 2022's significance marks use yet another mix: unpooled variances, but N₁+N₂-2
// degrees of freedom.
//
// # What 95% confidence means, and what it does not
//
// "Difference at 95.0% confidence: 1.18444 +/- 0.709817" means: the procedure that produced the
// interval [0.47, 1.89] captures the true difference of means in 95% of the experiments it is
// applied to, if the runs are independent draws as assumed. ministat says "Difference" when the
// interval excludes 0, which happens for at most 5% of comparisons of two identical kernels.
//
// It does not mean there is a 95% probability that the true difference lies in this interval
// (the true difference is fixed; the interval is what varies), nor a 95% probability that the
// patch is better, nor that the difference matters: with enough runs any difference is
// "proven", however small. It says nothing about errors that repeat in every run: a warm cache
// in one configuration and a cold one in the other, a different compiler, thermal throttling
// that sets in after the first hour, runs of A all before runs of B. Interleave the runs (A B A
// B …, as scripts/benchrounds does) to turn drift into noise the test can see. And it holds for
// one comparison: a table of fifty mmtests rows at its default level of 0.10 marks about five
// of them "significant" when nothing changed. The confidence level is the rate of false alarms
// you accept, chosen before looking (-c in ministat), not a dial to turn until the result
// appears.
//
// # Why one run proves nothing: seed 002
//
// Bruce Evans ran more than 200 makeworlds looking for a lost wakeup of idle threads. Two runs
// of the same configuration took 128.57 s and 168.53 s of real time, with idle times of 384 s
// and 711 s: "an enormous variance in the idle time -- of 327 seconds or 41 seconds per CPU".
// Six ULE runs of the same world took 127.06, 125.83, 130.33, 118.70, 127.09 and 115.80 s:
// mean 124.1, s = 5.6 s. A single run of a patched kernel that came in at 118 s would look like
// a 5% win and be nothing but the spread. His conclusion, that an optimisation "helps on
// average and for the best case", "was determined by running many more than a few hundred
// makeworlds". How many: with s = 5.6 s, [RunsNeeded] says a 1% difference (1.24 s) needs 322
// runs of each kernel to be found eight times in ten, and the 0.25 s of real time he discusses
// needs about 7900. When the idle time, not the work, varies, the only remedies are more runs
// or less variance (he turned PREEMPTION off, which brought the idle spread to about 5 s per
// CPU).
//
// # How many runs a 0.27% difference needs: seed 000
//
// Seed 000's nine buildkernel runs under 4BSD and under stock ULE differ by 1.18 s of 435.7 s,
// 0.27%, with a pooled s of 0.71 s; ministat proves it: ± 0.71 s, an interval of [0.47, 1.89]
// (t = 3.5). The smallest difference nine runs can prove is ministat's ± itself, 0.71 s: a true
// difference of exactly that size is "proven" half the time ([MinDetectable] at power 0.5). To
// find 1.18 s eight times in ten you need 7 runs of each; nine in ten, 9; half the time, 5
// ([RunsNeeded]). A 0.1% difference, 0.44 s, would need 43 runs of each. The lesson generalises:
// the runs needed grow with the square of s/Δ, so halving the noise is worth four times the
// runs.
//
// # Means: arithmetic, harmonic, geometric
//
// The arithmetic mean (mmtests' Amean, ministat's Avg) is right for quantities that add: times,
// latencies, bytes. For rates measured over the same amount of work it is wrong: a benchmark
// that does 1000 transactions at 100/s and then 1000 at 200/s did 2000 in 15 s, 133.3/s, which
// is the harmonic mean N/Σ(1/x), not the arithmetic 150. mmtests therefore summarises
// throughputs ("higher is better": tbench's MB/s) by Hmean and times by Amean, and its BHmean-N
// and BAmean-N rows are the same means over the best N% of the runs (the fastest times, the
// highest throughputs). The geometric mean, (Πx)^(1/N), is the mean of ratios: benchstat's
// geomean row summarises many benchmarks' speed-ups so that a 2× gain and a 2× loss cancel.
//
// # Latencies: ranks, medians and percentiles
//
// Wake-up latencies (schbench, seed 004's "Lat 99.9th-qrtle-16 1310 247") have long right tails:
// a mean and a standard deviation describe them badly, and Student's t, built on them, is weak
// and misleading. [MannWhitney] asks instead whether values of one sample tend to exceed values
// of the other, using only their order, exactly for small samples. For the tail itself, [Bootstrap]
// resamples the data to put a confidence interval on a median or a p99, and [BootstrapDiff] on
// the change of one between two policies; a p99.9 interval needs thousands of values, since the
// few largest decide it.
//
// # ministat, exactly
//
// [Ministat] reproduces the program's arithmetic and quirks, because matching it means matching
// them: the sums accumulate in input order and the variance comes from them, so a set of equal
// values can have a slightly negative variance and a Stddev that prints "-nan" (and then no
// difference is ever proven against it); the median of an even N is the upper middle value; the
// column of the t table labelled 99.5% holds the two-sided 99.8% values (318.313 for one
// degree of freedom), and seven of its entries are not the exact value rounded (df 1 and 7 to
// 12 of that column); beyond 100 degrees of freedom it uses the normal quantile; a plot
// position where two data sets meet shows the bitwise OR of their indexes, so '*' is both "the
// third set" and "x and + together"; the plot's rows shrink to the last data set's height.
// Numbers are printed with glibc's %g rules. Debian's version (20150715) prints the relative
// half-width as ± × 100 / baseline mean; FreeBSD's later ministat, which seeds 000 and 003
// quote, accounts for the uncertainty of both means in the ratio: that value is
// [Difference].RelHalfWidthRatio, and [Options].RatioHalfWidth prints it. FreeBSD's later
// ministat also has -q, which leaves out the legend and the table's header ([Options].Quiet);
// Debian's refuses it, and the tests check ours against Debian's report without those lines. The command refuses NaN and infinite input, which ministat
// accepts and then plots nonsense with, and a plot 1 column wide, with which it crashes.
//
// Sources: FreeBSD's src/usr.bin/ministat/ministat.c (github.com/freebsd/freebsd-src, read at
// commit 039ea811636f62633b18bcadb9f5332b215f7900 for the table and Relative, and the later
// version with the ratio half-width); Debian's ministat 20150715-1+b1, whose binary the tests
// run.
//
// # mmtests, exactly
//
// [Comparison] follows two versions of mmtests (github.com/gormanm/mmtests): the commit
// [MMTests2022] names (October 2022, the version seed 004's tables come from) and the one
// [MMTests2026] names (June 2026), in bin/lib/MMTests/Stat.pm, Summarise*.pm, Compare.pm,
// PrintGeneric.pm and compare-mmtests.pl. What both share: data sort best first; "Pctile.90"
// (2022: "Max-90") is the value at index ⌊0.9N⌋-1 of that order, so for a time it is the 90th
// percentile; a change is the percentage improvement, positive when better; values that
// mmtests cannot compute print as 0, and a change against an undefined baseline as mmtests
// prints it (100, or "NaN"). What changed between them:
//
//   - names: "BAmean-95", "Max-90", "2nd-qrtle" became "BAmean.95", "Pctile.90", "Pctile.50"
//     (2026-04);
//   - spread: a higher-is-better metric, summarised by its harmonic mean H, has since 2024-12
//     the spread of that mean, HStddev = sqrt(Σ(1/x−1/H)²·H⁴/N) (divisor N), and HCoeffVar,
//     where 2022 printed the arithmetic Stddev of the values;
//   - significance (2024-12): 2022 marks every mean row by a t test (unpooled variances,
//     N₁+N₂-2 degrees of freedom, p < 0.10); 2026 marks one row, the mean, when the 95%
//     intervals mean ± 1.96·Stddev of the baseline and the candidate do not overlap, |Δ| >
//     1.96·(s₀+s₁) (a much stricter rule: these are intervals of the values, not of the mean,
//     whose width would shrink with √N), and when both spreads are 0, when the difference
//     exceeds 1 unit; Variabletime marks its Pctile.95 row instead, with binomial confidence
//     intervals of that percentile;
//   - rows: Multiops lost BAmean-50 and -99 (2026-03); Normalisedops and NormalisedLeftSkewops
//     are new (2026-03 and -04);
//   - width: values are 18 wide since benchmarks moved to shellpack configurations (2026-01),
//     12 before.
//
// mmtests asks R for its quantiles (qnorm, qbinom, pt) and reads back R's printing, 7
// significant digits, of arguments Perl printed with 15: we compute the same quantiles with
// gonum and round them the same way, so a change at the edge of a mark gets the mark mmtests
// gives it. The tests compare 42 whole tables with what mmtests' own Perl printed for the same
// samples (testdata/mmtests). mmtests' Subselection kind resamples with an unseeded random
// generator, so no two of its runs print the same table; it is not implemented.
//
// # Names
//
//	ministat (ministat.c)                  ours
//	struct dataset, AddPoint, ReadSet      Dataset, Dataset.Add, ReadDataset
//	Min, Max, Median, Avg, Stddev, Var     Summary.Min, .Max, .Median, .Mean, .Stddev, .Variance()
//	student[][], studentpct[]              TableT, Levels
//	Relative                               Student (Difference.Delta, .HalfWidth, .Rel,
//	                                       .RelHalfWidth, .PooledS, .Significant)
//	"Difference at … confidence" lines     Difference.String
//	PlotSet, DumpPlot, Vitals, main        Ministat, Options (-w Width, -s Separate, -A NoPlot,
//	                                       -n SummaryOnly, -c Confidence), ReadOptions (-C, -d)
//	strtod                                 Strtod
//
//	mmtests (Stat.pm, Summarise.pm, Compare.pm)  ours
//	calc_amean, calc_hmean, calc_geomean         Stat{Kind: Amean}, Hmean, Gmean
//	_mean (Amean or Hmean by preferred value)    Stat{Kind: Mean}, Comparison.Better
//	_mean-N (BAmean.N, BHmean.N; 2022: BAmean-N) Stat{Kind: BestMean, Arg: N}
//	percentile-N (Pctile.N; 2022: Max-N, …)      Stat{Kind: Percentile, Arg: N}
//	calc_min, calc_max                           Min, Max
//	stddev-_mean, coeffvar-_mean (HStddev, …)    Stddev, CoeffVar
//	_value (_Opname)                             Value (Comparison.ValueName)
//	pdiff, pndiff                                Row.Changes
//	_significanceTest, _SignificanceLevel (2022) Row.Significant, Comparison.Level
//	_calc_meanci, _calc_percentileci, cidiff     Row.Significant, Comparison.Level (alpha)
//	--print-significance, --no-compare           Comparison.PrintSignificance, .NoChanges
//	_FieldLength, _Precision (DecimalPlaces)     Comparison.FieldLength, .Precision
//	SummariseMultiops, …Singleops, …Variabletime Multiops, Singleops, Variabletime
//	summarise: Normalisedops, …LeftSkewops       Normalisedops, NormalisedLeftSkewops
//
//	benchstat (golang.org/x/perf)                ours
//	benchfmt.Files, label=file, "-"              BenchInput (Name, Label, R)
//	-table, -row, -col, -ignore, -filter         BenchOptions (projections, benchproc)
//	-alpha, -confidence                          BenchOptions.Alpha, .Confidence (percent)
//	benchtab.Table, TableCell, TableSummary      BenchTable, BenchCell, BenchGeomean
//	Tables.ToText, Table.ToText, texttab         WriteBenchTables, BenchTable.Write
//	benchstat command                            bench/stat/cmd/benchtable
package stat
