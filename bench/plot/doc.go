// Package plot draws the pictures of a simulated run as self-contained SVG: a Gantt chart
// with one lane per CPU ([Gantt]), wake-up latency distribution functions with one curve per
// policy ([CDF]), CPU-share bars per thread across policies ([Shares]) and the distribution of
// repeated measurements as a box-and-strip plot ([Distribution]), the picture ministat(1)
// draws in ASCII.
//
// Every picture is a function of its data: the same input gives the same bytes, with no
// clock, no randomness and no JavaScript. The SVG needs no external resource (no fonts, no
// stylesheets), so a file opens in any browser and embeds as it is in an HTML page. Elements a
// reader (or a test) may want to count carry a class: "lane" (one per CPU of a Gantt chart),
// "slice" (a thread on a CPU), "wake", "migrate" and "preempt" (markers), "curve" (one per
// series of a CDF), "bar" (one per thread and policy), "box" and "point" (a distribution).
//
// # Scale
//
// A Gantt chart of ten simulated seconds can cover millions of context switches, far more
// than a screen has pixels. Gantt draws each run of a thread that is at least a pixel wide as
// its own rectangle and folds shorter ones into one-pixel columns coloured by the thread that
// ran longest in that column, and it draws at most one marker of each kind per pixel column
// and lane. The output is therefore bounded by lanes × width whatever the length of the trace,
// and a run reads the same at 10 ms (every slice, every wake-up) and at 10 s (who held each
// CPU, where the wake-ups cluster). Gantt reads the trace once, in order.
//
// # Colours
//
// A [Palette] gives each thread name a colour in the order names are first asked for, so the
// pictures of one report colour hog.1 alike under every policy. Policies get the colours of a
// second palette, in the order they are listed.
//
// # Names
//
//	tool or kernel                         plot
//	perfetto / kernelshark CPU tracks      Gantt, one lane per CPU
//	schbench latency percentiles           CDF (log axis with CDFOptions.Log)
//	top(1) %CPU                            Shares
//	ministat(1) ASCII distribution plot    Distribution: min/max whiskers, quartile box,
//	                                       median line, mean diamond, one point per value
//	a paper's figure beside our runs       Distribution's Marks (triangles, with a legend)
//
// A row of a Distribution whose repetitions are all equal is one bar with the words "all N runs
// X", not a dot that looks like a single run; times are labelled in the unit that suits the axis
// (4s, 500ms), and ratios that span decades take a logarithmic axis (DistOptions.Log).
package plot
