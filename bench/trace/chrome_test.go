package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"
)

// chromeEvent is one event of the Trace Event Format, as its document defines the fields.
type chromeEvent struct {
	Ph   string         `json:"ph"`
	Pid  *int           `json:"pid"`
	Tid  *int           `json:"tid"`
	TS   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	S    string         `json:"s"`
	ID   *uint64        `json:"id"`
	Bp   string         `json:"bp"`
	Args map[string]any `json:"args"`
}

// checkChrome checks data against the Trace Event Format's rules that chrome://tracing and
// Perfetto's importer depend on, and returns the events.
func checkChrome(t *testing.T, data []byte) []chromeEvent {
	t.Helper()
	var file struct {
		DisplayTimeUnit string        `json:"displayTimeUnit"`
		TraceEvents     []chromeEvent `json:"traceEvents"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		t.Fatalf("not JSON in the object format: %v", err)
	}
	if file.DisplayTimeUnit != "" {
		t.Errorf("displayTimeUnit = %q, want none (Perfetto before 2022 reads \"ns\" as the unit of ts)", file.DisplayTimeUnit)
	}
	named := map[[2]int]bool{}
	flows := map[uint64]int{}
	type span struct{ start, end float64 }
	slices := map[[2]int][]span{}
	for i, e := range file.TraceEvents {
		where := fmt.Sprintf("event %d (%+v)", i, e)
		if e.Pid == nil {
			t.Fatalf("%s: no pid", where)
		}
		switch e.Ph {
		case "M":
			if e.Args["name"] == nil && e.Args["sort_index"] == nil {
				t.Errorf("%s: metadata without a name or sort_index", where)
			}
			if e.Name == "thread_name" {
				named[[2]int{*e.Pid, *e.Tid}] = true
			}
			continue
		case "X", "i", "s", "f", "C":
		default:
			t.Fatalf("%s: phase %q is not one the exporter should write", where, e.Ph)
		}
		if e.TS == nil || *e.TS < 0 {
			t.Fatalf("%s: no timestamp or a negative one", where)
		}
		if e.Ph != "C" && e.Tid == nil {
			t.Fatalf("%s: no tid", where)
		}
		switch e.Ph {
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				t.Fatalf("%s: complete event without a non-negative dur", where)
			}
			k := [2]int{*e.Pid, *e.Tid}
			slices[k] = append(slices[k], span{*e.TS, *e.TS + *e.Dur})
		case "i":
			if e.S != "t" {
				t.Errorf("%s: instant event scope %q, want t", where, e.S)
			}
		case "s", "f":
			if e.ID == nil || e.Bp != "e" {
				t.Fatalf("%s: flow event without an id or binding point e", where)
			}
			if e.Ph == "s" {
				flows[*e.ID]++
			} else if flows[*e.ID] != 1 {
				t.Errorf("%s: flow end without exactly one start before it", where)
			} else {
				flows[*e.ID] = 2
			}
		case "C":
			for k, v := range e.Args {
				if f, ok := v.(float64); !ok || f < 0 {
					t.Errorf("%s: counter %s = %v, want a non-negative number", where, k, v)
				}
			}
		}
		if e.Ph != "C" && !named[[2]int{*e.Pid, *e.Tid}] {
			t.Errorf("%s: track %d/%d has no thread_name before it", where, *e.Pid, *e.Tid)
		}
	}
	for k, ss := range slices {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
		for i := 1; i < len(ss); i++ {
			if ss[i].start < ss[i-1].end {
				t.Errorf("track %v: slices [%v,%v] and [%v,%v] overlap", k, ss[i-1].start, ss[i-1].end, ss[i].start, ss[i].end)
			}
		}
	}
	return file.TraceEvents
}

func TestWriteChrome(t *testing.T) {
	tr := runTrace(t, pingPong, 2, 50*time.Millisecond)
	var buf bytes.Buffer
	if err := WriteChrome(&buf, tr, nil); err != nil {
		t.Fatal(err)
	}
	events := checkChrome(t, buf.Bytes())
	golden(t, "pingpong.json", buf.Bytes())

	// The CPU tracks' slices add up to each thread's CPU time as the simulator measured it.
	cpu := map[string]float64{}
	count := map[string]int{}
	for _, e := range events {
		if e.Ph == "X" && *e.Pid == chromeCPUs {
			cpu[e.Name] += *e.Dur
		}
		count[e.Ph+" "+e.Name]++
	}
	w := runResult(t, pingPong, 2, 50*time.Millisecond)
	for _, ts := range w.Threads {
		if got, want := cpu[ts.Name]*1000, float64(ts.CPUTime); got < want-0.5 || got > want+0.5 {
			t.Errorf("%s: CPU slices add up to %.0f ns, the simulator measured %d", ts.Name, got, ts.CPUTime)
		}
	}
	for _, k := range []string{"i wakeup", "i migrate", "i fork", "i exit", "s wakeup", "f wakeup", "C cpu0 nr_running", "C cpu1 nr_running", "X running", "X runnable"} {
		if count[k] == 0 {
			t.Errorf("no %q event", k)
		}
	}
}

func TestWriteChromeOptions(t *testing.T) {
	tr := runTrace(t, pingPong, 2, 50*time.Millisecond)
	var buf bytes.Buffer
	if err := WriteChrome(&buf, tr, &ChromeOptions{NoThreadTracks: true, NoCounters: true, NoFlows: true}); err != nil {
		t.Fatal(err)
	}
	for _, e := range checkChrome(t, buf.Bytes()) {
		if e.Ph == "C" || e.Ph == "s" || e.Ph == "f" || *e.Pid == chromeThreads {
			t.Fatalf("event %+v written despite the options", e)
		}
	}
}

func TestWriteChromeSynthetic(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteChrome(&buf, synthetic(5000, 7, 3), nil); err != nil {
		t.Fatal(err)
	}
	checkChrome(t, buf.Bytes())
}
