package trace

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// schedgraphLine is the grammar schedgraph.py's KTRFile.parse applies to each line (its hdrexp,
// groupexp, idexp, typeexp and attribexp, written here in Go's syntax): index, CPU and timestamp,
// then KTRGRAPH, the group and id quoted, TYPE:DATA with DATA quoted or up to a comma, and the
// attributes. A line it does not match is "Can't parse" there.
var schedgraphLine = regexp.MustCompile(`^\s*(\d+)\s+(\d+)\s+(\d+)\s+KTRGRAPH group:"([^"]*)", id:"([^"]*)", ([^:]+):(?:"([^"]*)"|([^,]+)), attributes: (.*)`)

// schedgraphAttr is its attrexp: a name (quoted or up to ':'), then a value quoted or up to
// ',' followed by more, or the rest.
var schedgraphAttr = regexp.MustCompile(`^(?:"([^"]*)"|([^:]+))\s*:\s*(?:(?:"([^"]*)"|([^,]+)), (.*)|"([^"]*)"|(.*))`)

// TestWriteKTRSchedgraph checks an export line by line against schedgraph.py's grammar: every
// line but the marker and ktrdump's heading matches it, the attributes parse as its attrexp
// reads them, the timestamps never go up (its checkstamp), the indexes count down, and the
// entries schedgraph's colour table names are there.
func TestWriteKTRSchedgraph(t *testing.T) {
	var buf bytes.Buffer
	// Under EEVDF on one CPU the hog is preempted: "yielding" entries.
	w, err := workload.Parse(pingPong)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Trace: sim.TraceFull}, policy("cfs:v6.6"), w, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteKTR(&buf, res.Trace, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if lines[0] != ktrNanoMarker || !strings.HasPrefix(lines[1], "index  cpu timestamp") || !strings.HasPrefix(lines[2], "------ ---") {
		t.Fatalf("heading %q", lines[:3])
	}
	seen := map[string]int{}
	last, lastIdx := int64(-1), len(lines)-3
	for _, l := range lines[3:] {
		m := schedgraphLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q: schedgraph.py cannot parse it", l)
		}
		idx, _ := strconv.Atoi(m[1])
		ts, _ := strconv.ParseInt(m[3], 10, 64)
		if idx != lastIdx-1 {
			t.Errorf("line %q: index %d after %d", l, idx, lastIdx)
		}
		if last >= 0 && ts > last {
			t.Errorf("line %q: timestamp %d after %d: schedgraph.py wants the newest first", l, ts, last)
		}
		lastIdx, last = idx, ts
		data := m[7] + m[8]
		seen[m[6]+":"+data]++
		attrs := m[9]
		for attrs != "" && attrs != "none" {
			a := schedgraphAttr.FindStringSubmatch(strings.TrimSpace(attrs))
			if a == nil {
				t.Fatalf("line %q: attributes %q do not parse", l, attrs)
			}
			attrs = a[5]
		}
	}
	for _, want := range []string{"state:running", "state:sleep", "state:yielding", "state:runq add", "state:thread exit",
		"state:idle", "point:wokeup", "counter:1"} {
		if seen[want] == 0 {
			t.Errorf("no %s entry in the export: %v", want, seen)
		}
	}
}

func TestWriteKTRGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteKTR(&buf, runTrace(t, pingPong, 2, 50*time.Millisecond), nil); err != nil {
		t.Fatal(err)
	}
	golden(t, "pingpong.ktr", buf.Bytes())
}

// TestWriteKTREntries keeps the newest entries only, as the kernel's ring does.
func TestWriteKTREntries(t *testing.T) {
	tr := runTrace(t, pingPong, 2, 50*time.Millisecond)
	var all, some bytes.Buffer
	if err := WriteKTR(&all, tr, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteKTR(&some, tr, &KTROptions{Entries: 10}); err != nil {
		t.Fatal(err)
	}
	a, s := strings.Split(all.String(), "\n"), strings.Split(some.String(), "\n")
	if len(s) != 3+10+1 || strings.Join(s[3:13], "\n") != strings.Join(a[3:13], "\n") {
		t.Errorf("with Entries 10:\n%s\nwant the first 10 entries of\n%s", some.String(), strings.Join(a[:16], "\n"))
	}
}

// TestKTRRoundTrip runs random workloads under ULE, 4BSD and EEVDF (which preempts), exports each run as KTR text and
// imports it back: every thread's CPU time, run-queue wait, sleep and wake-ups are the
// simulator's to the nanosecond, and replaying the import under the same policy gives each
// thread its CPU time again.
func TestKTRRoundTrip(t *testing.T) {
	n := 8
	if testing.Short() {
		n = 3
	}
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 26))
		ncpu := 1 + r.IntN(4)
		w, err := workload.Parse(randomWorkload(r, ncpu, false))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"ule:main", "bsd4:main", "cfs:v6.6"} {
			label := fmt.Sprintf("seed=%d/cpus=%d/%s", seed, ncpu, name)
			cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, ncpu, 1), Trace: sim.TraceFull, Seed: seed}
			res, err := sim.Run(cfg, policy(name), w, 5*time.Second)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			var text bytes.Buffer
			if err := WriteKTR(&text, res.Trace, nil); err != nil {
				t.Fatal(err)
			}
			o, log := chargeLog(ImportOptions{})
			im, err := ReadKTR(&text, label, o)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			if err := accountingError(im, *log); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			if im.Warned > 0 {
				t.Errorf("%s: warnings on our own export: %v", label, im.Warnings)
			}
			byTid := map[int64]*TaskStats{}
			for i := range im.Tasks {
				byTid[im.Tasks[i].PID] = &im.Tasks[i]
			}
			for _, st := range res.Threads {
				ts := byTid[int64(ktrTidBase+int(st.ID))]
				if ts == nil {
					t.Fatalf("%s: %s not imported", label, st.Name)
				}
				if ts.Comm != st.Name || ts.CPUTime != st.CPUTime || ts.WaitTime != st.WaitTime || ts.Sleep != st.Sleep || ts.Wakeups != st.Wakeups {
					t.Errorf("%s: %s imported as %s cpu %d wait %d sleep %d wakeups %d; simulated cpu %d wait %d sleep %d wakeups %d", label, st.Name,
						ts.Comm, ts.CPUTime, ts.WaitTime, ts.Sleep, ts.Wakeups, st.CPUTime, st.WaitTime, st.Sleep, st.Wakeups)
				}
			}
			cfg.Trace = sim.TraceOff
			c, err := Replay(cfg, policy(name), im, 5*time.Second)
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			for _, tc := range c.Tasks {
				if tc.CPUTime != tc.Trace.CPUTime {
					t.Errorf("%s: %s replayed %d ns of CPU, the trace shows %d", label, tc.Trace.Label(), tc.CPUTime, tc.Trace.CPUTime)
				}
			}
		}
	}
}

// kargl is a KTR_SCHED excerpt in the form ktrdump -ct prints (newest first), as a 2011 kernel
// with the 2011 priority layout logs it: two CPUs, a statclock tick every 1 ms of a 1 GHz
// clock (stathz 1000) on CPU 0, a compute-bound thread (prio 220 after its CPU use), a thread
// it wakes (the "runq add" linked to it), an interrupt thread (prio 40), a lock event of
// another group, and ktrdump's heading. In ms from the first entry:
//
//	CPU 0: hog runs 0..4 (statclock at 1, 2, 3, 4), sleeps.
//	CPU 1: sh runs 0..0.1 and sleeps; at 1.5 hog (on CPU 0) adds sh to a run queue; sh runs
//	       1.6..2.6, yields to swi4, which it woke and which runs 2.6..2.7, then runs 2.7..3.0
//	       and sleeps; idle to the end.
const kargl = `index  cpu timestamp        trace
------ --- ---------------- ----- 
    26   0          5000000 KTRGRAPH group:"thread", id:"idle: cpu0 tid 100003", state:"running", attributes: prio:255
    25   0          5000000 KTRGRAPH group:"thread", id:"hog tid 100100", state:"sleep", attributes: prio:220, wmesg:"nanslp", lockname:"(null)"
    24   0          5000000 KTRGRAPH group:"thread", id:"hog tid 100100", point:"statclock", attributes: prio:220, stathz:1000
    23   1          4000000 KTRGRAPH group:"thread", id:"idle: cpu1 tid 100004", state:"running", attributes: prio:255
    22   1          4000000 KTRGRAPH group:"thread", id:"sh tid 100200", state:"sleep", attributes: prio:152, wmesg:"wait", lockname:"(null)"
    21   0          4000000 KTRGRAPH group:"thread", id:"hog tid 100100", point:"statclock", attributes: prio:220, stathz:1000
    20   1          3700000 KTRGRAPH group:"thread", id:"sh tid 100200", state:"running", attributes: prio:150
    19   1          3700000 KTRGRAPH group:"thread", id:"swi4: clock (0) tid 100010", state:"iwait", attributes: prio:40, wmesg:"(null)", lockname:"(null)"
    18   1          3600000 KTRGRAPH group:"thread", id:"swi4: clock (0) tid 100010", state:"running", attributes: prio:40
    17   1          3600000 KTRGRAPH group:"thread", id:"sh tid 100200", state:"yielding", attributes: prio:150, wmesg:"(null)", lockname:"(null)"
    16   1          3600000 KTRGRAPH group:"load", id:"CPU 1 load", counter:2, attributes: none
    15   1          3600000 KTRGRAPH group:"thread", id:"swi4: clock (0) tid 100010", state:"runq add", attributes: prio:40, linkedto:"sh tid 100200"
    14   1          3000000 KTRGRAPH group:"thread", id:"sh tid 100200", point:"statclock", attributes: prio:150, stathz:1000
    13   0          3000000 KTRGRAPH group:"thread", id:"hog tid 100100", point:"statclock", attributes: prio:220, stathz:1000
    12   1          2600000 KTRGRAPH group:"thread", id:"sh tid 100200", state:"running", attributes: prio:150
    11   1          2600000 KTRGRAPH group:"thread", id:"idle: cpu1 tid 100004", state:"idle", attributes: prio:255
    10   1          2500000 KTRGRAPH group:"lock", id:"sleepq chain", state:"blocked", attributes: none
     9   0          2500000 KTRGRAPH group:"thread", id:"hog tid 100100", point:"wokeup", attributes: linkedto:"sh tid 100200"
     8   0          2500000 KTRGRAPH group:"thread", id:"sh tid 100200", state:"runq add", attributes: prio:150, linkedto:"hog tid 100100"
     7   1          2000000 KTRGRAPH group:"thread", id:"idle: cpu1 tid 100004", point:"statclock", attributes: prio:255, stathz:1000
     6   0          2000000 KTRGRAPH group:"thread", id:"hog tid 100100", point:"statclock", attributes: prio:220, stathz:1000
     5   1          1100000 KTRGRAPH group:"thread", id:"idle: cpu1 tid 100004", state:"running", attributes: prio:255
     4   1          1100000 KTRGRAPH group:"thread", id:"sh tid 100200", state:"sleep", attributes: prio:152, wmesg:"wait", lockname:"(null)"
     3   1          1000000 KTRGRAPH group:"thread", id:"sh tid 100200", state:"running", attributes: prio:150
     2   1          1000000 KTRGRAPH group:"thread", id:"idle: cpu1 tid 100004", state:"idle", attributes: prio:255
     1   0          1000000 KTRGRAPH group:"thread", id:"hog tid 100100", state:"running", attributes: prio:220
     0   0          1000000 KTRGRAPH group:"thread", id:"idle: cpu0 tid 100003", state:"idle", attributes: prio:255
`

// TestReadKTR imports kargl: the clock from the statclock points (4 on CPU 0 over the 4 ms
// span, stathz 1000: 1 GHz), the threads' CPU time from their running and switch-out states,
// sh's wake-up by hog as a pipe, swi4 as an interrupt thread (rtprio level 0), the lock event
// skipped and counted.
func TestReadKTR(t *testing.T) {
	o, log := chargeLog(ImportOptions{KTRVersion: ule.FreeBSD9})
	im, err := ReadKTR(strings.NewReader(kargl), "kargl.out", o)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountingError(im, *log); err != nil {
		t.Fatal(err)
	}
	if im.Duration != 4e6 || im.CPUs != 2 || im.Warned != 0 {
		t.Errorf("duration %d, %d CPUs, warnings %v; want 4 ms, 2, none", im.Duration, im.CPUs, im.Warnings)
	}
	if im.Skipped["lock/state:blocked"] != 1 || im.Skipped["(not KTRGRAPH)"] != 2 {
		t.Errorf("skipped %v; want the lock event and ktrdump's two heading lines", im.Skipped)
	}
	want := map[string]struct{ cpu, wait, sleep int64 }{
		"hog-100100":             {4e6, 0, 0},
		"sh-100200":              {0.1e6 + 1e6 + 0.3e6, 0.1e6 + 0.1e6, 1.4e6 + 1e6},
		"swi4: clock (0)-100010": {0.1e6, 0, 1.3e6},
	}
	for _, ts := range im.Tasks {
		w, ok := want[ts.Label()]
		if !ok {
			t.Errorf("unexpected task %s", ts.Label())
			continue
		}
		if ts.CPUTime != w.cpu || ts.WaitTime != w.wait || ts.Sleep != w.sleep {
			t.Errorf("%s: cpu %d wait %d sleep %d; want %d %d %d", ts.Label(), ts.CPUTime, ts.WaitTime, ts.Sleep, w.cpu, w.wait, w.sleep)
		}
		delete(want, ts.Label())
	}
	if len(want) > 0 {
		t.Errorf("not imported: %v", want)
	}
	text := workload.Format(im.Workload)
	for _, frag := range []string{"pipe p-hog-100100-sh-100200", "class=fifo rtprio=freebsd:0"} {
		if !strings.Contains(text, frag) {
			t.Errorf("the workload has no %q:\n%s", frag, text)
		}
	}
	// Given a clock rate, the times scale: 2 GHz halves them.
	im2, err := ReadKTR(strings.NewReader(kargl), "kargl.out", &ImportOptions{KTRClockHz: 2e9, KTRVersion: ule.FreeBSD9})
	if err != nil || im2.Duration != 2e6 {
		t.Errorf("at 2 GHz: duration %v, %v; want 2 ms", im2, err)
	}
}

// TestReadKTRReplays replays kargl under every family: under CFS its rtprio level is mapped onto
// a Linux priority, under ULE and 4BSD it stays.
func TestReadKTRReplays(t *testing.T) {
	im, err := ReadKTR(strings.NewReader(kargl), "kargl.out", &ImportOptions{KTRVersion: ule.FreeBSD9})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ule:main", "bsd4:main", "cfs:v7.1"} {
		c, err := Replay(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, policy(name), im, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		mapped := len(c.Adapted.RT) > 0
		if mapped != (name == "cfs:v7.1") || mapped && (c.Adapted.RT[0].Scale != sched.RTFreeBSD || c.Adapted.RT[0].To != 99) {
			t.Errorf("%s: mapped %+v", name, c.Adapted.RT)
		}
		for _, tc := range c.Tasks {
			if tc.CPUTime != tc.Trace.CPUTime {
				t.Errorf("%s: %s replayed %d ns, the trace shows %d", name, tc.Trace.Label(), tc.CPUTime, tc.Trace.CPUTime)
			}
		}
	}
}

func TestReadKTRErrors(t *testing.T) {
	const head = "     1   0          1000000 KTRGRAPH "
	cases := []struct{ name, text, want string }{
		{"empty", "", "kt.out: no KTRGRAPH line"},
		{"only heading", "index  cpu timestamp        trace\n------ --- ---------------- -----\n", "kt.out: no KTRGRAPH line"},
		{"no cpu column", "     1          1000000 KTRGRAPH group:\"thread\", id:\"a tid 1\", state:\"running\", attributes: prio:120\n", "kt.out:1: columns:"},
		{"bad timestamp", "     1   0   -5 KTRGRAPH group:\"thread\", id:\"a tid 1\", state:\"running\", attributes: prio:120\n", "kt.out:1: timestamp:"},
		{"bad cpu", "     1   99999999   5 KTRGRAPH group:\"thread\", id:\"a tid 1\", state:\"running\", attributes: prio:120\n", "kt.out:1: cpu:"},
		{"no group", head + "id:\"a tid 1\", state:\"running\", attributes: prio:120\n", "kt.out:1: group:"},
		{"no id", head + "group:\"thread\", state:\"running\", attributes: prio:120\n", "kt.out:1: id:"},
		{"unterminated", head + "group:\"thread\", id:\"a tid 1\", state:\"running, attributes: prio:120\n", "kt.out:1: state:"},
		{"no attributes", head + "group:\"thread\", id:\"a tid 1\", state:\"running\"\n", "kt.out:1: attributes:"},
		{"long line", head + strings.Repeat("x", maxLine+10) + "\n", "kt.out:1: line longer than 1 MiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadKTR(strings.NewReader(tc.text), "kt.out", nil)
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("ReadKTR = %v; want an *Error starting %q", err, tc.want)
			}
		})
	}
	if _, err := ReadKTR(strings.NewReader(kargl), "kt.out", &ImportOptions{KTRClockHz: -1}); err == nil {
		t.Errorf("a negative clock rate is accepted")
	}
}

// TestReadKTRWarnings: lost switch-outs are counted warnings, and a trace without clock
// information warns that a tick is taken as a nanosecond.
func TestReadKTRWarnings(t *testing.T) {
	const text = `     3   0          3000 KTRGRAPH group:"thread", id:"b tid 2", state:"running", attributes: prio:120
     2   0          2000 KTRGRAPH group:"thread", id:"a tid 1", state:"running", attributes: prio:120
     1   0          1000 KTRGRAPH group:"thread", id:"c tid 3", state:"running", attributes: prio:120
`
	o, log := chargeLog(ImportOptions{})
	im, err := ReadKTR(strings.NewReader(text), "kt.out", o)
	if err != nil {
		t.Fatal(err)
	}
	if err := accountingError(im, *log); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, w := range im.Warnings {
		msgs = append(msgs, w.Msg)
	}
	all := strings.Join(msgs, "\n")
	if im.Warned != 3 || !strings.Contains(all, "no clock rate") || !strings.Contains(all, "CPU 0 runs a-1 without c-3 switching out") {
		t.Errorf("warnings:\n%s", all)
	}
}

func FuzzReadKTR(f *testing.F) {
	f.Add(kargl)
	var buf bytes.Buffer
	if err := WriteKTR(&buf, runTrace(f, pingPong, 2, 5*time.Millisecond), &KTROptions{Entries: 40}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Fuzz(func(t *testing.T, text string) {
		for _, opts := range []ImportOptions{{}, {Summary: true}, {KTRVersion: ule.FreeBSD9, KTRClockHz: 3e9}} {
			// The accounting invariant is the oracle, as for ReadFtrace.
			o, log := chargeLog(opts)
			im, err := ReadKTR(strings.NewReader(text), "fuzz.ktr", o)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.File != "fuzz.ktr" || strings.Contains(err.Error(), "internal error") {
					t.Fatalf("error %v is not an *Error naming the file", err)
				}
				continue
			}
			if err := im.Workload.Validate(); err != nil {
				t.Fatalf("imported workload does not validate: %v", err)
			}
			if err := accountingError(im, *log); err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
		}
	})
}
