package host_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/host"
)

// Real files of this kernel (6.18), trimmed.
const (
	statusText = "Name:\tcat\nUmask:\t0022\nState:\tR (running)\nTgid:\t18119\nThreads:\t1\nCpus_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t1\n"
	schedText  = "cat (18119, #threads: 1)\n-------------------------------------------------------------------\nse.exec_start                                :        462150.667029\nse.sum_exec_runtime                          :             0.000000\nse.nr_migrations                             :                    3\nnr_switches                                  :                    0\n"
	statText   = "cpu  4705 0 2349 67338 84 0 61 0 0 0\ncpu0 2342 0 1178 33585 45 0 30 0 0 0\ncpu1 2363 0 1171 33753 39 0 31 0 0 0\nintr 1 2 3\nctxt 987654\n"
)

func TestParseSchedstat(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    host.Schedstat
		errLine int
		errCol  int
	}{
		{in: "167318 5875182 2\n", want: host.Schedstat{CPU: 167318, Wait: 5875182, Slices: 2}},
		{in: "0 0 0", want: host.Schedstat{}},
		{in: "1 2\n", errLine: 1, errCol: 4},
		{in: "1 x 3\n", errLine: 1, errCol: 3},
		{in: "1 2 3 4\n", errLine: 1, errCol: 7},
		{in: "-1 2 3\n", errLine: 1, errCol: 1},
		{in: "", errLine: 1, errCol: 1},
		{in: "99999999999999999999 1 1", errLine: 1, errCol: 1},
	} {
		got, err := host.ParseSchedstat(tc.in)
		if tc.errLine == 0 {
			require.NoError(t, err, "ParseSchedstat(%q)", tc.in)
			require.Equal(t, tc.want, got, "ParseSchedstat(%q)", tc.in)
			continue
		}
		var pe *host.ParseError
		require.True(t, errors.As(err, &pe), "ParseSchedstat(%q) = %v, want a ParseError", tc.in, err)
		require.Equal(t, [2]int{tc.errLine, tc.errCol}, [2]int{pe.Line, pe.Col}, "ParseSchedstat(%q): %v", tc.in, err)
	}
}

func TestParseStatus(t *testing.T) {
	s, err := host.ParseStatus(statusText)
	require.NoError(t, err)
	require.Equal(t, host.Switches{Voluntary: 7, Involuntary: 1}, s)
	_, err = host.ParseStatus("voluntary_ctxt_switches:\t7\n")
	require.ErrorContains(t, err, "missing")
	_, err = host.ParseStatus("x:\t1\nvoluntary_ctxt_switches:\tseven\nnonvoluntary_ctxt_switches:\t1\n")
	require.ErrorContains(t, err, "status:2:26:")
}

func TestParseMigrations(t *testing.T) {
	n, err := host.ParseMigrations(schedText)
	require.NoError(t, err)
	require.Equal(t, int64(3), n)
	_, err = host.ParseMigrations("nr_switches : 0\n")
	require.ErrorContains(t, err, "se.nr_migrations missing")
}

func TestParseProcStat(t *testing.T) {
	cpus, err := host.ParseProcStat(statText)
	require.NoError(t, err)
	require.Len(t, cpus, 2)
	require.Equal(t, host.CPUTimes{CPU: 1, User: 2363, System: 1171, Idle: 33753, IOWait: 39, SoftIRQ: 31}, cpus[1])
	require.Equal(t, int64(33753+39), cpus[1].IdleTicks())
	require.Equal(t, int64(2363+1171+31), cpus[1].BusyTicks())
	for _, tc := range []struct{ in, want string }{
		{"cpuX 1 2 3 4\n", "stat:1:1:"},
		{"cpu0 1 2 3\n", "has 3 counts"},
		{"cpu  1 1 1 1\ncpu0 1 2 x 4\n", "stat:2:"},
	} {
		_, err := host.ParseProcStat(tc.in)
		require.ErrorContains(t, err, tc.want, "ParseProcStat(%q)", tc.in)
	}
}

func TestParseLoadavg(t *testing.T) {
	v, err := host.ParseLoadavg("4.59 4.43 2.10 3/345 18119\n")
	require.NoError(t, err)
	require.Equal(t, 4.59, v)
	_, err = host.ParseLoadavg("x\n")
	require.Error(t, err)
}

func TestParseIO(t *testing.T) {
	r, w, sr, sw, err := host.ParseIO("rchar: 116952573\nwchar: 120985600\nsyscr: 30000\nsyscw: 11815\nread_bytes: 0\n")
	require.NoError(t, err)
	require.Equal(t, []int64{116952573, 120985600, 30000, 11815}, []int64{r, w, sr, sw})
	_, _, _, _, err = host.ParseIO("rchar: 1\n")
	require.ErrorContains(t, err, "missing")
}

// naiveSchedstat is the reference reader: strings.Fields and strconv.
func naiveSchedstat(s string) (host.Schedstat, bool) {
	line, _, _ := strings.Cut(s, "\n")
	if strings.Contains(line, "  ") || strings.HasPrefix(line, " ") || strings.HasSuffix(line, " ") {
		return host.Schedstat{}, false
	}
	f := strings.Split(line, " ")
	if len(f) != 3 {
		return host.Schedstat{}, false
	}
	var v [3]int64
	for i, x := range f {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || n < 0 || x[0] == '+' || x[0] == '-' {
			return host.Schedstat{}, false
		}
		v[i] = n
	}
	return host.Schedstat{CPU: v[0], Wait: v[1], Slices: v[2]}, true
}

func FuzzParseSchedstat(f *testing.F) {
	for _, s := range []string{"167318 5875182 2\n", "0 0 0", "1 2", "1  2 3", "+1 2 3", "1 2 3 \n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := host.ParseSchedstat(s)
		want, ok := naiveSchedstat(s)
		if ok != (err == nil) {
			t.Fatalf("ParseSchedstat(%q) = %v, %v; the naive reader says ok=%v", s, got, err, ok)
		}
		if ok && got != want {
			t.Fatalf("ParseSchedstat(%q) = %v, want %v", s, got, want)
		}
		var pe *host.ParseError
		if err != nil && (!errors.As(err, &pe) || pe.Line != 1 || pe.Col < 1) {
			t.Fatalf("ParseSchedstat(%q): error %v without a position", s, err)
		}
	})
}

// naiveCPULine is the reference reader of one "cpuN" line of /proc/stat.
func naiveCPULine(l string) (host.CPUTimes, bool) {
	f := strings.Fields(l)
	if len(f) < 5 || len(f) > 11 {
		return host.CPUTimes{}, false
	}
	id, err := strconv.Atoi(strings.TrimPrefix(f[0], "cpu"))
	if err != nil || id < 0 {
		return host.CPUTimes{}, false
	}
	var v [10]int64
	for i, x := range f[1:] {
		n, err := strconv.ParseInt(x, 10, 64)
		if err != nil || n < 0 || x[0] == '+' || x[0] == '-' {
			return host.CPUTimes{}, false
		}
		v[i] = n
	}
	return host.CPUTimes{CPU: id, User: v[0], Nice: v[1], System: v[2], Idle: v[3], IOWait: v[4], IRQ: v[5],
		SoftIRQ: v[6], Steal: v[7], Guest: v[8], GuestNice: v[9]}, true
}

func FuzzParseProcStat(f *testing.F) {
	f.Add(statText)
	f.Add("cpu0 1 2 3\n")
	f.Add("cpu7 1 2 3 4 5 6 7 8 9 10 11\n")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := host.ParseProcStat(s)
		var want []host.CPUTimes
		ok := true
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "cpu") || strings.HasPrefix(l, "cpu ") {
				continue
			}
			c, good := naiveCPULine(l)
			if !good {
				ok = false
				break
			}
			want = append(want, c)
		}
		if ok != (err == nil) {
			t.Fatalf("ParseProcStat(%q) = %v, %v; the naive reader says ok=%v", s, got, err, ok)
		}
		if ok {
			require.Equal(t, want, got)
		}
		var pe *host.ParseError
		if err != nil && (!errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1) {
			t.Fatalf("ParseProcStat(%q): error %v without a position", s, err)
		}
	})
}

func FuzzParseStatus(f *testing.F) {
	f.Add(statusText)
	f.Add(schedText)
	f.Fuzz(func(t *testing.T, s string) {
		sw, err := host.ParseStatus(s)
		var pe *host.ParseError
		if err != nil {
			require.True(t, errors.As(err, &pe) && pe.Line >= 1 && pe.Col >= 1, "ParseStatus(%q): %v", s, err)
			return
		}
		require.GreaterOrEqual(t, sw.Voluntary, int64(0))
		require.GreaterOrEqual(t, sw.Involuntary, int64(0))
		_, _ = host.ParseMigrations(s)
		_, _, _, _, _ = host.ParseIO(s)
	})
}
