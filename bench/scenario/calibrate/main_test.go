package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pipeline calibration runs the real tar and gzip over a small directory and reads their
// counters: the records and the CPU per record come out positive and consistent with the bytes.
func TestPipelineOnRealPrograms(t *testing.T) {
	for _, p := range []string{"tar", "gzip"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("no /proc/PID/schedstat (needs Linux with schedstats)")
	}
	dir := filepath.Join(t.TempDir(), "src")
	require.NoError(t, os.Mkdir(dir, 0o755))
	for i := range 20 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".txt"), bytes.Repeat([]byte("schedkit calibration "), 5000), 0o644))
	}
	var out bytes.Buffer
	require.NoError(t, calibrate(&out, dir, 1))
	var c Calibration
	require.NoError(t, json.Unmarshal(out.Bytes(), &c))
	require.Len(t, c.Runs, 1)
	assert.Equal(t, int64(10240), c.RecordBytes, "GNU tar writes 10240-byte records")
	assert.Positive(t, c.Records)
	// gzip's rchar is what tar wrote plus the little the dynamic loader reads of its libraries.
	assert.GreaterOrEqual(t, c.Runs[0].Gzip.ReadBytes, c.Runs[0].Tar.WriteBytes)
	assert.Less(t, c.Runs[0].Gzip.ReadBytes-c.Runs[0].Tar.WriteBytes, int64(64<<10))
	assert.Positive(t, c.GzipNsPerRec)
	assert.Positive(t, c.Runs[0].Tar.CPUNs)
}

func TestCompileOnRealCompiler(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.c"), []byte("int f(int x) { return x * 2; }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.c"), []byte("#include <no/such/header.h>\n"), 0o644))
	var out bytes.Buffer
	require.NoError(t, calibrateCompile(&out, dir, 2))
	var c Compile
	require.NoError(t, json.Unmarshal(out.Bytes(), &c))
	assert.Len(t, c.Jobs, 2, "the file that does not compile is dropped; two passes of the other")
	assert.Positive(t, c.MeanCPUNs)
}

func TestParsers(t *testing.T) {
	assert.Equal(t, []int64{12, 34, 5}, fields("12 34 5\n"))
	assert.Nil(t, fields("12 x"))
	st := "Name:\tgzip\nvoluntary_ctxt_switches:\t90\nnonvoluntary_ctxt_switches:\t4090\n"
	assert.Equal(t, int64(90), keyed(st, "voluntary_ctxt_switches:"))
	assert.Equal(t, int64(4090), keyed(st, "nonvoluntary_ctxt_switches:"))
	assert.Equal(t, int64(-1), keyed(st, "missing:"))
	assert.True(t, strings.HasPrefix(firstLine("sh", "-c", "echo one; echo two"), "one"))
}

func TestPipeOnRealKernel(t *testing.T) {
	for _, p := range []string{"gcc", "taskset"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	var out bytes.Buffer
	require.NoError(t, calibratePipe(&out, 1))
	var c PipeCalibration
	require.NoError(t, json.Unmarshal(out.Bytes(), &c))
	require.Len(t, c.SameCPUNs, 1)
	assert.Positive(t, c.SwitchNs)
	assert.Equal(t, c.SameCPUNs[0]/2, c.SwitchNs)
}

// bsdtar's layout of a small tree is read back exactly: every member counted once, in the
// record its header starts in, and the archive a whole number of 10240-byte records.
func TestTarLayoutOnBsdtar(t *testing.T) {
	if _, err := exec.LookPath("bsdtar"); err != nil {
		t.Skip("bsdtar is not installed (Debian: libarchive-tools; .ci/run installs it)")
	}
	dir := filepath.Join(t.TempDir(), "tree")
	require.NoError(t, os.Mkdir(dir, 0o755))
	// Ten files of 100 bytes (1024 bytes each in the archive: header and one data block),
	// then one of 30000 bytes (header and 59 blocks).
	for i := range 10 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("a%d", i)), bytes.Repeat([]byte("x"), 100), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "z"), bytes.Repeat([]byte("y"), 30000), 0o644))
	per, err := layout(dir)
	require.NoError(t, err)
	total := 0
	for _, k := range per {
		total += k
	}
	assert.Equal(t, 12, total, "the directory and its 11 files")
	// 512 (the directory) + 10 × 1024 + 512 + 30208 + 1024 (end of archive) = 42496 bytes:
	// five records, the last padded.
	assert.Len(t, per, 5)
	assert.LessOrEqual(t, per[len(per)-1], 0, "the last record is end-of-archive blocks and padding")
}

// TestRunLengths checks the members-per-record text of the calibration: runs of equal counts
// as COUNT*LENGTH, single ones alone, and the members' total.
func TestRunLengths(t *testing.T) {
	for _, c := range []struct {
		per     []int
		text    string
		members int
	}{
		{nil, "", 0},
		{[]int{3}, "3", 3},
		{[]int{3, 1, 1, 1, 2}, "3,1*3,2", 8},
		{[]int{0, 0, 5, 5}, "0*2,5*2", 10},
	} {
		text, members := runLengths(c.per)
		assert.Equal(t, c.text, text, "%v", c.per)
		assert.Equal(t, c.members, members, "%v", c.per)
	}
}

// The chain calibration runs cc1 alone, a job shell and true on one small C file: every CPU
// time is positive, the shell's own CPU excludes the compile it forked (it is smaller than the
// whole compile), and the fractions are the medians' ratios.
func TestChainOnRealPrograms(t *testing.T) {
	for _, p := range []string{"gcc", "make", "true"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	if _, err := os.Stat("/proc/self/schedstat"); err != nil {
		t.Skip("no /proc/PID/schedstat (needs Linux with schedstats)")
	}
	dir := t.TempDir()
	src := "int f(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * i; return s; }\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f.c"), []byte(strings.Repeat("\n", 3)+src), 0o644))
	a, err := cc1Command(filepath.Join(dir, "f.c"))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(a[0], "/cc1"), "%v", a)
	assert.Equal(t, filepath.Join(dir, "f.c"), a[len(a)-1])
	assert.Contains(t, strings.Join(a, " "), "-o "+os.DevNull)
	var out bytes.Buffer
	require.NoError(t, calibrateChain(&out, dir, 1))
	var c Chain
	require.NoError(t, json.Unmarshal(out.Bytes(), &c))
	require.Len(t, c.CC1, 1)
	require.Len(t, c.Shells, 1)
	require.Len(t, c.GCCs, 1)
	assert.Positive(t, c.CC1CPUNs)
	assert.Positive(t, c.TrueCPUNs)
	assert.Positive(t, c.MakeCPUNs)
	assert.Less(t, c.ShellCPUNs, c.GCCCPUNs, "the shell's own CPU leaves out the gcc it forked")
	assert.InDelta(t, float64(c.ShellCPUNs)/float64(c.GCCCPUNs), c.ShellPerCompile, 1e-12)
	assert.InDelta(t, float64(c.TrueCPUNs)/float64(c.GCCCPUNs), c.TruePerCompile, 1e-12)
}

// TestSwitchRates checks the off-CPU arithmetic the compile and chain calibrations share: a
// job's time off CPU is its wall time less its CPU and its run-queue wait, never below 0, and
// jobs without a voluntary switch give no time per switch rather than a division by zero.
func TestSwitchRates(t *testing.T) {
	jobs := []counters{
		{CPUNs: 2e9, Voluntary: 4, WallNs: 3e9},                    // rusage: 1 s off CPU
		{CPUNs: 1e9, Voluntary: 2, WallNs: 2e9, RunDelayNs: 0.5e9}, // schedstat: 0.5 s off CPU
		{CPUNs: 1e9, Voluntary: 0, WallNs: 0.5e9},                  // wall below CPU: 0, not -0.5 s
	}
	cpu, perSecond, offPerBlock := switchRates(jobs)
	assert.Equal(t, int64(4e9), cpu)
	assert.Equal(t, 1.5, perSecond, "6 switches in 4 s of CPU")
	assert.Equal(t, int64(0.25e9), offPerBlock, "1.5 s off CPU over 6 switches")
	_, _, offPerBlock = switchRates([]counters{{CPUNs: 1e9, WallNs: 2e9}})
	assert.Equal(t, int64(1e9), offPerBlock, "no switch: the time off CPU over max(1, 0)")
}

// TestMedianOf checks the median the calibrations report: the middle value, the upper middle
// of an even count, whatever the order, and the values left in their order.
func TestMedianOf(t *testing.T) {
	id := func(x int64) int64 { return x }
	v := []int64{5, 1, 4, 2}
	assert.Equal(t, int64(4), medianOf(v, id))
	assert.Equal(t, []int64{5, 1, 4, 2}, v)
	assert.Equal(t, int64(3), medianOf([]int64{9, 3, 1}, id))
	assert.Equal(t, int64(7), medianOf([]int64{7}, id))
}
