package workload_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// FuzzParse feeds arbitrary text to Parse: it must never panic, every error must be a positioned
// *Error, and every accepted workload must survive Format → Parse and JSON → ParseJSON unchanged.
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("thread x\n  slep 1ms\nend")
	f.Add("pipe p cap=2\nthread a\n\tloop\n\t\trun exp(1ms)\n\t\tsend p 3\n\tend\nend\n")
	f.Add("group g weight=5 idle\ntemplate t group=g\n\tevery 1ms 3\n\t\trun uniform(1us,2us)\n\tend\nend\nthread m\n\tfork t 2\n\tjoin\nend")
	f.Add("thread x class=rr rtprio=3 cpus=0-3:1/2\n\tclass fifo 2\n\tnice -20\n\tcpus 1\nend")
	f.Add(prioSample)
	f.Add(untilSample)
	f.Add("pipe a\nthread w\n\tuntil a\n\tend\nend\n")
	f.Fuzz(func(t *testing.T, text string) {
		w, err := workload.Parse(text)
		if err != nil {
			var e *workload.Error
			if !errors.As(err, &e) || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("Parse(%q) error %v is not positioned", text, err)
			}
			return
		}
		out := workload.Format(w)
		back, err := workload.Parse(out)
		if err != nil {
			t.Fatalf("Parse(Format(w)) = %v for\n%s", err, out)
		}
		if again := workload.Format(back); again != out {
			t.Fatalf("Format(Parse(Format(w))) differs:\n%s\nwant\n%s", again, out)
		}
		data, err := json.Marshal(w)
		if err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
		fromJSON, err := workload.ParseJSON(data)
		if err != nil {
			t.Fatalf("ParseJSON(%s) = %v", data, err)
		}
		if got := workload.Format(fromJSON); got != out {
			t.Fatalf("JSON round trip differs:\n%s\nwant\n%s", got, out)
		}
	})
}

// FuzzParseJSON feeds arbitrary bytes to ParseJSON: it must never panic, every error must be an
// *Error with a position, and an accepted workload must survive a round trip.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"threads": [{"name": "hog", "count": 2, "ops": [{"op": "run", "time": "forever"}]}]}`))
	f.Add([]byte(`{"pipes": [{"name": "p"}], "threads": [{"name": "a", "ops": [{"op": "loop", "body": [{"op": "recv", "name": "p"}, {"op": "run", "time": "exp(1ms)"}]}]}]}`))
	f.Add([]byte(`{"threads": [{"name": "a", "ops": [{"op": "slep"}]}]}`))
	f.Add([]byte(`{"threads": [`))
	f.Add([]byte(`{"threads": [{"name": "a", "Name": "b", "ops": [{"op": "run", "time": "0s"}]}]}`))
	f.Add([]byte(`{"threads": [{"name": "a", "ops": [{"op": "sleep"}]}]}`))
	f.Add([]byte(`{"pipes": [{"name": "p"}, {"name": "q"}], "threads": [{"name": "a", "ops": [{"op": "until", "name": "p", "n": 2, "body": [{"op": "recv", "name": "q"}, {"op": "run", "time": "1ms"}]}]}]}`))
	f.Add([]byte(`{"pipes": [{"name": "p"}], "threads": [{"name": "a", "ops": [{"op": "loop", "body": [{"op": "run", "time": "1us"}, {"op": "until", "name": "p", "body": [{"op": "sleep", "time": "exp(1ms)"}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := workload.ParseJSON(data)
		if err != nil {
			var e *workload.Error
			if !errors.As(err, &e) || e.Pos.Line < 1 || e.Pos.Col < 1 {
				t.Fatalf("ParseJSON(%q) error %v is not positioned", data, err)
			}
			return
		}
		out, err := json.Marshal(w)
		if err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
		back, err := workload.ParseJSON(out)
		if err != nil {
			t.Fatalf("ParseJSON(Marshal(w)) = %v for %s", err, out)
		}
		if a, b := workload.Format(w), workload.Format(back); a != b {
			t.Fatalf("round trip differs:\n%s\nwant\n%s", b, a)
		}
	})
}
