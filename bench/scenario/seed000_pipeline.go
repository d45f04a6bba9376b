// This file implements seed000-pipeline: tar feeding gzip through a pipe beside a CPU hog.

package scenario

import (
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// Pipe models of the pipeline (parameter "pipe").
const (
	// pipeDirect is FreeBSD's direct write: tar's 10240-byte write(2) is at least
	// PIPE_MINDIRECT (8192, sys/sys/pipe.h), so pipe_write hands it over with
	// pipe_direct_write and tar sleeps until gzip's read has copied it (sys/kern/sys_pipe.c).
	// Modelled as a data pipe of one record and an acknowledgement gzip sends on reading.
	pipeDirect = 0
)

// linuxPipeRecords is how many of tar's records a Linux pipe holds: 64 KiB (PIPE_DEF_BUFFERS
// pages of 4 KiB, fs/pipe.c) over 10240-byte records, rounded down.
const linuxPipeRecords = 65536 / 10240

func init() { Register(seed000Pipeline()) }

// tarLayout is the calibrated layout of bsdtar's records, decoded once.
var tarLayout = TarLayout()

func seed000Pipeline() *Scenario {
	cal, lay := Pipeline(), tarLayout
	src := fmt.Sprintf("measured here: %s, %s, %s, %s", cal.Command, cal.TarVersion, cal.GzipVersion, cal.Kernel)
	s := &Scenario{
		Name:  "seed000-pipeline",
		Seed:  "000",
		Title: "tar | gzip beside a CPU hog pinned with gzip (seed 000's second table)",
		Description: `Seed 000 (Mateusz Guzik, "ule: queue partial slice users on tdq_realtime and enable more
preemption", 2023) pins a nice 20 CPU hog to the core gzip runs on and times tar cf - /usr/src | gzip:
45.23 s alone, 907.07 s with the hog under stock ULE, 61.46 s with the patch (pick_short=1,
preempt_thresh=224). A thread that goes off CPU waits a full slice of the hog to come back.

The workload follows the programs' source and is calibrated from running them here. FreeBSD's tar
is libarchive's bsdtar, which writes 10240-byte records (tar/bsdtar.h: DEFAULT_BYTES_PER_BLOCK, 20
blocks of 512); a write of at least PIPE_MINDIRECT (8192) bytes is a direct write
(sys/kern/sys_pipe.c: tar waits in write(2) until the reader has copied the record); FreeBSD's gzip
(usr.bin/gzip/gzip.c, gz_compress) refills its 64 KiB buffer with one read(2), which returns the one
record of a direct write (pipe_read stops once it has read something), and deflates it. So gzip
sleeps only when tar has not yet written the next record, which happens where bsdtar's per-member
work (finding, opening and reading the metadata of each file and directory) for the next record
exceeds gzip's work on this one. calibrate -what tar-layout measures bsdtar's archive of the Go
tree's src (data/tar-layout.json): how many members start in each record, and bsdtar's CPU per
member and per record; gzip's CPU per record is from calibrate -what pipeline. tar runs on CPU 0
(ULE's sched_pickcpu puts a woken thread on its last CPU while that is idle, and the seed's VM had
idle CPUs), gzip and the hog on CPU 1. Linux policies use a 64 KiB pipe of six records. The run
ends when tar and gzip have exited; time is the later exit.`,
		Params: []Param{
			{Name: "records", Doc: "tar records piped: the first this many of the calibrated layout (bsdtar's archive of the Go tree's src)", Unit: "records", Default: float64(lay.Records), Min: 1, Max: float64(lay.Records), Integer: true},
			{Name: "tar_record_us", Doc: "bsdtar's CPU per record of data (calibrated: -what tar-layout)", Unit: "us", Default: float64(lay.NsPerRecord) / 1e3, Min: 0.001, Max: 1e6},
			{Name: "tar_member_us", Doc: "bsdtar's CPU per member, file or directory (calibrated: -what tar-layout; FreeBSD's in the seed's VM is not known)", Unit: "us", Default: float64(lay.NsPerMember) / 1e3, Min: 0, Max: 1e6},
			{Name: "member_scale", Doc: "multiplies tar_member_us: bsdtar's per-member cost on FreeBSD in the seed's VM is not known, so rows show ×2 and ×4", Default: 1, Min: 0, Max: 100},
			{Name: "layout", Doc: "1: each record costs tar its own members (the calibrated layout); 0: every record the mean", Default: 1, Min: 0, Max: 1, Integer: true},
			{Name: "gzip_us", Doc: "gzip CPU per record (calibrated)", Unit: "us", Default: float64(cal.GzipNsPerRec) / 1e3, Min: 0.001, Max: 1e6},
			{Name: "hog", Doc: "1: a CPU hog pinned to gzip's CPU", Default: 1, Min: 0, Max: 1, Integer: true},
			{Name: "hog_nice", Doc: "the hog's nice value", Default: 20, Min: 0, Max: 20, Integer: true},
			{Name: "hog_idle", Doc: "1: the hog is SCHED_IDLE", Default: 0, Min: 0, Max: 1, Integer: true},
			{Name: "pipe", Doc: "records the pipe holds; 0: FreeBSD direct write (writer waits for the reader)", Unit: "records", Default: pipeDirect, Min: 0, Max: 1024, Integer: true},
		},
		Rows: pipelineRows(),
		Metrics: []Metric{
			{Name: "time", Unit: "s", Of: func(r *sim.Result, _ *Setup) float64 { return pipelineEnd(r) }},
			{Name: "gzip wait", Unit: "s", Of: func(r *sim.Result, _ *Setup) float64 {
				t, _ := r.Thread("gzip")
				return float64(t.WaitTime) / 1e9
			}},
		},
		Build: buildPipeline,
		// The workload has no random durations: repetitions differ only by the policies' own
		// random choices, so three give the t test its spread.
		Reps:      3,
		Small:     Values{"records": 400},
		SmallReps: 3,
		Expect:    pipelineExpect(),
	}
	const why = "gzip sleeps on 135-142 records at bsdtar's member cost measured here; stock's 20× needs ×2-2.5"
	s.Claims = []Claim{
		{Text: "tar | gzip beside a nice 20 hog, stock ULE (ps 0, pt 48)", Row: "ULE 2023 (ps pt)/0 48", Why: why},
		{Text: "… preempt_thresh 224 alone does not help", Row: "ULE 2023 (ps pt)/0 224", Why: why},
		{Text: "… pick_short alone does not help", Row: "ULE 2023 (ps pt)/1 48", Why: why},
		{Text: "… the fix (ps 1, pt 224): close to the run alone", Row: "ULE 2023 (ps pt)/1 224",
			Why: "woken gzip preempts the hog, but its slice expires 27-28 times and the hog then runs a whole one"},
		{Text: "… the fix against stock ULE", Row: "ULE 2023 (ps pt)/1 224", Versus: "ULE 2023 (ps pt)/0 48", Why: why},
	}
	s.Notes = pipelineNotes(cal, lay, src)
	return s
}

// pipelineExpect are seed000-pipeline's expectations: the seed's effects in their bands, and
// the Linux rows beside what Linux 6.18 measured here.
func pipelineExpect() []Expectation {
	return []Expectation{
		{Doc: "stock ULE: gzip sleeps where tar's records hold many members, and waits a slice of the hog each time (seed: 20×)", Row: "ULE 2023 (ps pt)/0 48", Baseline: "ULE 2023 (ps pt)/baseline", Min: 3, Max: 100},
		// Checked at the small size (the first 400 records: 1.0004×, not significant, in the
		// golden). At the full size under the ci profile of 2026-12-07 00:52 the model gives 1.65×,
		// above the band: gzip's slice expires 27-32 times and the hog then runs a whole one
		// (see the notes). The band stays the seed's claim, not the model's figure.
		{Doc: "pick_short with preempt_thresh 224: a woken gzip preempts the hog (seed: 1.36×)", Row: "ULE 2023 (ps pt)/1 224", Baseline: "ULE 2023 (ps pt)/baseline", Min: 0.95, Max: 1.5},
		{Doc: "preempt_thresh 224 alone does not help (seed: 19.1×)", Row: "ULE 2023 (ps pt)/0 224", Baseline: "ULE 2023 (ps pt)/baseline", Min: 3, Max: 100},
		// Under the ci profile of 2026-12-07 00:52 gzip sleeps on 8-9 records in all (seed 1) and both
		// rows give 1.84×, as on the ideal profile: ULE alternates whole slices of gzip and the
		// hog. The band, from the run alone to an even share, stands for "at most shares".
		{Doc: "records alike: gzip rarely sleeps, so ULE at most shares the CPU with the hog, fix or not", Row: "records alike/1 224", Baseline: "records alike/baseline", Min: 0.8, Max: 2.2},
		{Doc: "per-member cost ×2: stock ULE many times slower", Row: "member ×2/0 48", Baseline: "member ×2/baseline", Min: 5, Max: 1000},
		// Within 20 % below: beside the hog gzip's CPU never idles, so its wake-ups skip the
		// idle exit the run alone pays on each (the profile's idle_exit).
		{Doc: "per-member cost ×2: the fix back near the run alone", Row: "member ×2/1 224", Baseline: "member ×2/baseline", Min: 0.8, Max: 1.5},
		{Doc: "EEVDF: a nice 0 hog halves gzip's share (Linux 6.18 here: 2.02×)", Row: "EEVDF v7.1/nice 0", Baseline: "EEVDF v7.1/baseline", Min: 1.7, Max: 2.3},
		// The host measured 1.02×; under the ci profile of 2026-12-05 the model gives 0.997×
		// (not significant): the few percent are within the runs' noise, not a mechanism.
		{Doc: "EEVDF: a nice 19 hog costs at most a few percent (Linux 6.18 here: 1.02×)", Row: "EEVDF v7.1/nice 19", Baseline: "EEVDF v7.1/baseline", Min: 0.95, Max: 1.1},
		// Under the ci profile of 2026-12-07 00:52 the model gives 0.98×: beside the hog gzip's CPU never
		// idles, so its wake-ups skip the idle exit (19 us) the run alone pays on each.
		{Doc: "CFS: a SCHED_IDLE hog costs about nothing (Linux 6.18 here: 1.01×)", Row: "CFS v6.5/SCHED_IDLE", Baseline: "CFS v6.5/baseline", Min: 0.95, Max: 1.05},
	}
}

// pipelineRows are seed000-pipeline's rows: the seed's four ULE kernels beside the run alone,
// the same with every record alike and with bsdtar's per-member cost doubled and quadrupled,
// and the other policies, Linux's with its pipe of whole records.
func pipelineRows() []Row {
	hogRow := func(label, column, policy string, nice int, idle bool, pipe float64, base string, pub *Figure) Row {
		set := Values{"hog": 1, "hog_nice": float64(nice), "pipe": pipe}
		if idle {
			set["hog_idle"] = 1
		}
		return Row{Label: label, Column: column, Policy: policy, Set: set, Baseline: base, Published: pub}
	}
	base := func(column, policy string, pipe float64, pub *Figure) Row {
		return Row{Label: "baseline", Column: column, Policy: policy, Set: Values{"hog": 0, "pipe": pipe}, Published: pub}
	}
	// alike makes every record cost tar the same (the mean): the model before the layout
	// was calibrated, for comparison.
	alike := func(r Row) Row {
		r.Set["layout"] = 0
		return r
	}
	// scaled multiplies bsdtar's per-member cost: FreeBSD's in the seed's VM is not known, so
	// the scenario shows where the seed's figures fall as it doubles.
	scaled := func(k float64, r Row) Row {
		r.Set["member_scale"] = k
		return r
	}
	fbsd := "FreeBSD 14 (2023), amd64, tar cf - /usr/src | cpuset -l 3 time gzip, hog: cpuset -l 3 nice -n 20 cpuburner"
	linux := "Linux 6.18 on this machine, same experiment (pipe 64 KiB), hog pinned with gzip"
	return []Row{
		base("ULE 2023 (ps pt)", "ule:legacy", pipeDirect, &Figure{Value: 45.23, Unit: "s", On: fbsd + " (no hog)"}),
		hogRow("0 48", "ULE 2023 (ps pt)", "ule:seed000-ps0-pt48", 20, false, pipeDirect, "ULE 2023 (ps pt)/baseline", &Figure{Value: 907.07, Unit: "s", On: fbsd}),
		hogRow("0 224", "ULE 2023 (ps pt)", "ule:seed000-ps0-pt224", 20, false, pipeDirect, "ULE 2023 (ps pt)/baseline", &Figure{Value: 864.24, Unit: "s", On: fbsd}),
		hogRow("1 48", "ULE 2023 (ps pt)", "ule:seed000-ps1-pt48", 20, false, pipeDirect, "ULE 2023 (ps pt)/baseline", &Figure{Value: 869.69, Unit: "s", On: fbsd}),
		hogRow("1 224", "ULE 2023 (ps pt)", "ule:seed000-ps1-pt224", 20, false, pipeDirect, "ULE 2023 (ps pt)/baseline", &Figure{Value: 61.46, Unit: "s", On: fbsd}),
		alike(base("records alike", "ule:legacy", pipeDirect, nil)),
		alike(hogRow("0 48", "records alike", "ule:seed000-ps0-pt48", 20, false, pipeDirect, "records alike/baseline", nil)),
		alike(hogRow("1 224", "records alike", "ule:seed000-ps1-pt224", 20, false, pipeDirect, "records alike/baseline", nil)),
		scaled(2, base("member ×2", "ule:legacy", pipeDirect, nil)),
		scaled(2, hogRow("0 48", "member ×2", "ule:seed000-ps0-pt48", 20, false, pipeDirect, "member ×2/baseline", nil)),
		scaled(2, hogRow("1 224", "member ×2", "ule:seed000-ps1-pt224", 20, false, pipeDirect, "member ×2/baseline", nil)),
		scaled(4, base("member ×4", "ule:legacy", pipeDirect, nil)),
		scaled(4, hogRow("0 48", "member ×4", "ule:seed000-ps0-pt48", 20, false, pipeDirect, "member ×4/baseline", nil)),
		scaled(4, hogRow("1 224", "member ×4", "ule:seed000-ps1-pt224", 20, false, pipeDirect, "member ×4/baseline", nil)),
		base("ULE main", "ule:main", pipeDirect, nil),
		hogRow("nice 20", "ULE main", "ule:main", 20, false, pipeDirect, "ULE main/baseline", nil),
		base("4BSD", "bsd4:freebsd14", pipeDirect, nil),
		hogRow("nice 20", "4BSD", "bsd4:freebsd14", 20, false, pipeDirect, "4BSD/baseline", nil),
		base("CFS v6.5", "cfs:v6.5", linuxPipeRecords, nil),
		hogRow("nice 0", "CFS v6.5", "cfs:v6.5", 0, false, linuxPipeRecords, "CFS v6.5/baseline", nil),
		hogRow("nice 19", "CFS v6.5", "cfs:v6.5", 19, false, linuxPipeRecords, "CFS v6.5/baseline", nil),
		hogRow("SCHED_IDLE", "CFS v6.5", "cfs:v6.5", 0, true, linuxPipeRecords, "CFS v6.5/baseline", nil),
		base("EEVDF v7.1", "cfs:v7.1", linuxPipeRecords, nil),
		hogRow("nice 0", "EEVDF v7.1", "cfs:v7.1", 0, false, linuxPipeRecords, "EEVDF v7.1/baseline", &Figure{Value: 2.02, Ratio: true, Reference: true, Unit: "×", On: linux}),
		hogRow("nice 19", "EEVDF v7.1", "cfs:v7.1", 19, false, linuxPipeRecords, "EEVDF v7.1/baseline", &Figure{Value: 1.02, Ratio: true, Reference: true, Unit: "×", On: linux}),
		hogRow("SCHED_IDLE", "EEVDF v7.1", "cfs:v7.1", 0, true, linuxPipeRecords, "EEVDF v7.1/baseline", &Figure{Value: 1.01, Ratio: true, Reference: true, Unit: "×", On: linux}),
	}
}

// pipelineNotes are seed000-pipeline's notes: the sources read, the mechanism, what is swept and
// why, and the calibration.
func pipelineNotes(cal PipelineCalibration, lay TarLayoutCalibration, src string) []string {
	return []string{
		"Sources read for the mechanism: usr.bin/gzip/gzip.c (FreeBSD gzip 20190107, the gzip of FreeBSD 13 and 14: " +
			"gz_compress refills its 64 KiB buffer with one read(2) per deflate round, never looping to fill it); " +
			"sys/kern/sys_pipe.c (pipe_write takes the direct path for a blocking write of at least pipe_mindirect, 8192 " +
			"bytes, and pipe_direct_write sleeps until the reader has copied it; pipe_read returns as soon as it has read " +
			"something, so a read gets one record); contrib/libarchive tar/bsdtar.h (DEFAULT_BYTES_PER_BLOCK = 20 × 512) " +
			"and libarchive/archive_read_disk_posix.c, archive_read_disk_entry_from_file.c (the per-member work: stat, open, " +
			"ACLs, extended attributes, file flags, sparse-file probes); sys/kern/sched_ule.c sched_pickcpu (2023: a woken " +
			"thread goes back to its last CPU when that CPU is idle and the affinity holds, else to the least loaded CPU of " +
			"its cache group, so the unpinned tar does not join gzip and the hog while other CPUs idle).",
		"So gzip sleeps only when bsdtar has not yet written the next record: where the next record holds the headers of " +
			"many small files or directories, bsdtar's per-member work exceeds gzip's deflate of the current record. " +
			"calibrate -what tar-layout counts the members starting in each record of bsdtar's archive of the Go tree's src " +
			fmt.Sprintf("(%d records, %d members) and fits bsdtar's CPU here: %.1f us per member and %.1f us per record.",
				lay.Records, lay.Members, float64(lay.NsPerMember)/1e3, float64(lay.NsPerRecord)/1e3) +
			" Each sleep under stock ULE costs gzip the rest of the hog's slice (preempt_thresh 48 lets no timeshare thread " +
			"preempt); with pick_short and preempt_thresh 224 the woken gzip preempts the hog, and neither knob alone does.",
		"Traced on 2026-12-07 (seeds 1-3, the ci profile of 00:52 that day, the defaults): under stock ULE tar wakes gzip 112-121 times " +
			"in the 13377 records and no wake-up preempts the hog (gzip's priority 136 is not <= preempt_thresh 48; the " +
			"hog's: 176-209): gzip waits 10.3-11.1 s there, 92 ms each, the rest of the hog's slice (12 ticks of " +
			"stathz 127, 94.5 ms). With the fix each of gzip's 104-109 wake-ups preempts the hog (136 <= 224; about 1 ms " +
			"of waiting in all), so its 2.5-3.0 s of waiting come from elsewhere: where tar stays ahead for longer than a " +
			"slice gzip never sleeps and its slice expires (27-32 times), and at every expiry the hog runs first, a whole " +
			"slice: 10-11 times from the real-time range, where pick_short queues the hog that gzip's last wake-up " +
			"preempted, otherwise from the calendar queue, whose scan reaches the hog's slot before gzip's (ULE's " +
			"sharing of the CPU in the records alike rows). gzip is runnable meanwhile, so no wake-up of it cuts " +
			"the hog's slice short. Under stock ULE gzip's expiries hand the CPU to the hog at only 3-5 of 26-29. The dearer " +
			"the members, the more often gzip sleeps and the fewer slices it uses up whole (seed 1, the fix: 12 expiries " +
			"and 1.1 s at ×2, 4 and 0.45 s at ×4). The profile no longer decides: on the ideal profile stock gives 3.09× " +
			"and the fix 1.75× (ci: 3.58× and 1.65×).",
		"Not known, so swept: bsdtar's per-member cost on FreeBSD in the seed's 8-core VM and the layout of its " +
			"/usr/src (many more small files than Go's src). Swept under the ci profile of 2026-12-07 00:52 (seeds 1-2), " +
			"member_scale ×1 / 1.25 / 1.5 / 1.75 / 2 / 2.5 / 3 gives stock 3.54 / 6.01 / 10.5 / 13.1 / 16.9 / 23.7 / 30.5× and " +
			"the fix 1.68 / 1.54 / 1.30 / 1.28 / 1.24 / 1.17 / 1.11×: the seed's 1.36× falls in its band (1.27-1.47×) at " +
			"×1.5 to ×1.75, its 20.05× (16.0-25.1×) at ×2 to ×2.5, so no swept cost brings both out (the member ×2 and ×4 " +
			"rows). The defaults stay at the measured cost, so the summary's verdicts are at ×1.",
		pipelineSyscallNote,
		"records alike: every record costing tar the mean (the model before the layout was calibrated). gzip sleeps " +
			"on 8-9 of the 13377 records (traced 2026-12-07, seed 1, the ci profile of 00:52 that day), ULE alternates whole slices of gzip " +
			"and the nice 20 hog (seed 000's other bug: 1.84×, gzip waits 3.5-3.6 s behind 38 of the hog's slices, on the " +
			"ideal profile alike), and the fix, which acts on wake-ups only, changes nothing: the variation of tar's " +
			"work per record is the mechanism.",
		"gzip's CPU per record is constant (GNU gzip over GNU tar's archive of the same tree, calibrate -what pipeline): " +
			"FreeBSD's gzip uses zlib's deflate at level 6 as GNU gzip does its own; records of headers compress faster, " +
			"which would make gzip wait more often, not less.",
		"4BSD: the nice 20 hog gets no CPU beside gzip (its priority stays below gzip's), so the pipeline runs as fast as alone; the seed has no 4BSD figure.",
		"The Linux pipe holds " + fmt.Sprintf("%d", linuxPipeRecords) + " whole records and gzip takes one per read; the real gzip reads " +
			fmt.Sprintf("%d", cal.GzipReadSize) + " bytes at a time, which changes how often tar is woken, not gzip's CPU time.",
		"Calibration: " + src + "; " + strings.TrimSpace(lay.Bsdtar) + ", " + lay.Kernel + ". Costs are constant per record and member, so " +
			"repetitions differ only by the policies' own random choices.",
	}
}

// pipelineSyscallNote bounds bsdtar's per-member cost on FreeBSD from libarchive's source and the
// system calls bsdtar makes here.
const pipelineSyscallNote = "Bounded from source (libarchive 3.6.2, bsdtar here, and FreeBSD 14's contrib/libarchive): per member " +
	"bsdtar makes the same kinds of system calls on both systems. strace -c -f of bsdtar cf - -C GOROOT src here " +
	"(2026-12-07; 12802 members: 11478 files, 1324 directories) counts, besides the data's reads and writes, 17.8 " +
	"calls per member: 5.4 lseek (the SEEK_DATA/SEEK_HOLE sparse-file probe, 6 per file), 2.2 newfstatat, 2.1 " +
	"openat, 2.2 close, 2.4 fcntl, 1 fgetxattr (libacl's POSIX.1e ACL, failing with ENODATA), 1 flistxattr, 1 ioctl " +
	"(FS_IOC_GETFLAGS), and per directory getdents64, fchdir and getxattr (the default ACL). On FreeBSD " +
	"(archive_read_disk_acl_freebsd.c, archive_read_disk_entry_from_file.c) the ACL is acl_get_fd_np for ACL_TYPE_NFS4 " +
	"and, where the file system has no NFSv4 ACL (UFS), again for ACL_TYPE_ACCESS (one call more; on ZFS the trivial " +
	"NFSv4 ACL ends it at one, acl_is_trivial_np being no call), the file flags come with stat's st_flags (the " +
	"ioctl's call less), the sparse probe asks fpathconf(_PC_MIN_HOLE_SIZE) where Linux probes with lseek(SEEK_HOLE) " +
	"(as many calls), and extattr_list_fd stands for flistxattr: 17-19 calls per member, 0.94-1.06 times Linux's " +
	"count. Each call costs 1.3-2.3 us of CPU here (a loop of each, warm caches, 2026-12-07: getppid 1.26, fcntl " +
	"1.33, ioctl 1.51, flistxattr 1.57, fgetxattr 1.60, lseek 1.88, newfstatat 2.28, openat with close 4.30), about " +
	"33 us per member by the counts above against the 31.2 us fitted: bsdtar's per-member cost here is its system " +
	"calls. So the source puts FreeBSD's per-member cost at ×0.94-1.06 of the measured one at equal cost per call, " +
	"which keeps the default at ×1; the seed's figures need its calls 1.5-2.5 times dearer in the seed's VM " +
	"(FreeBSD's system-call and VFS paths, its file system, its hypervisor) or /usr/src's layout, which the source " +
	"does not bound."

// pipelineEnd returns the later exit of tar and gzip in seconds.
func pipelineEnd(r *sim.Result) float64 {
	var end int64
	for _, n := range []string{"tar", "gzip"} {
		t, _ := r.Thread(n)
		end = max(end, t.End)
	}
	return float64(end) / 1e9
}

func usDist(us float64) workload.Dist { return workload.Fixed(workload.Duration(us * 1e3)) }

func buildPipeline(v Values, _ *Row) (Setup, error) {
	n := int(v["records"])
	tar := workload.Thread{Name: "tar", CPUs: topology.CPUSetOf(0)}
	gz := workload.Thread{Name: "gzip", CPUs: topology.CPUSetOf(1)}
	w := &workload.Workload{}
	direct := v["pipe"] == pipeDirect
	// tar's records: each costs bsdtar its record of data and the members whose headers
	// start in it (or, with layout 0, the mean), then is written; with the direct write tar
	// waits until gzip has copied it.
	per := tarLayout.PerRecord[:n]
	mean := 0.0
	for _, k := range per {
		mean += float64(k)
	}
	mean /= float64(n)
	record := func(members float64) []workload.Op {
		ops := []workload.Op{workload.RunOp(usDist(v["tar_record_us"] + members*v["tar_member_us"]*v["member_scale"])), workload.SendOp("data", 1)}
		if direct {
			ops = append(ops, workload.RecvOp("ack", 1))
		}
		return ops
	}
	tarCPU := 0.0
	if v["layout"] == 0 {
		tar.Ops = []workload.Op{workload.RepeatOp(n, record(mean)...)}
		tarCPU = float64(n) * (v["tar_record_us"] + mean*v["tar_member_us"]*v["member_scale"])
	} else {
		for i := 0; i < n; {
			j := i
			for j < n && per[j] == per[i] {
				j++
			}
			tar.Ops = append(tar.Ops, workload.RepeatOp(j-i, record(float64(per[i]))...))
			tarCPU += float64(j-i) * (v["tar_record_us"] + float64(per[i])*v["tar_member_us"]*v["member_scale"])
			i = j
		}
	}
	if direct {
		w.Pipes = []workload.Pipe{{Name: "data", Cap: 1}, {Name: "ack", Cap: 1}}
		gz.Ops = []workload.Op{workload.RepeatOp(n, workload.RecvOp("data", 1), workload.SendOp("ack", 1), workload.RunOp(usDist(v["gzip_us"])))}
	} else {
		w.Pipes = []workload.Pipe{{Name: "data", Cap: int(v["pipe"])}}
		gz.Ops = []workload.Op{workload.RepeatOp(n, workload.RecvOp("data", 1), workload.RunOp(usDist(v["gzip_us"])))}
	}
	w.Threads = []workload.Thread{tar, gz}
	if v["hog"] == 1 {
		hog := workload.Thread{Name: "hog", CPUs: topology.CPUSetOf(1), Nice: int(v["hog_nice"]),
			Ops: []workload.Op{workload.RunOp(workload.Unbounded())}}
		if v["hog_idle"] == 1 {
			hog.Class = sched.Idle
		}
		w.Threads = append(w.Threads, hog)
	}
	// Generous bound: every record waiting a full 4BSD/ULE slice behind the hog and more.
	until := time.Duration((tarCPU+float64(n)*v["gzip_us"])*1e3) + time.Duration(n)*time.Second/2 + 10*time.Second
	return Setup{
		Config:         sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), StatHz: 127},
		Workload:       w,
		Until:          until,
		StopWhenExited: []string{"tar", "gzip"},
	}, nil
}
