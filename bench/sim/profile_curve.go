package sim

// This file implements IdleCurve, a profile's optional figure "ipi_idle": the reschedule IPI's
// latency by how long its target CPU had been idle, as points each with its distribution.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ipiIdleName is the IdleCurve's name among a profile file's figures.
const ipiIdleName = "ipi_idle"

// maxCurveIdle is the largest idle time of an IdleCurve's point that is not absurd: idle_poll's
// limit, a second.
const maxCurveIdle = time.Second

// An IdleCurve is a profile's figure "ipi_idle": the latency of a reschedule IPI to an idle CPU
// by how long the CPU had been idle when the IPI was sent ([Idle.IPICurve], which says how a
// model draws from it), measured at a few idle times. In a profile file it is
//
//	"ipi_idle": {"unit": "us", "points": [{"idle": 0, "min": 2.1, "p50": 17.3, "p90": 25,
//	             "p99": 41, "max": 300}, {"idle": 10, …}, …], "method": "…", "date": "…"}
//
// each point an idle time and the quantiles of a figure (p50 alone, or min, p90, p99 and max
// with it, and p99.9 and p99.5 if measured), all in the unit, the idle times ascending, from 0
// to at most a second, each quantile at most ipi's limit (ProfileFigureLimit).
type IdleCurve struct {
	// Points are the idle times and the IPI's latency at each, in ascending order of idle time;
	// none when the profile has no curve.
	Points []IdleIPI
	// Unit is the unit the file gives the points in: ns, us, µs, ms or s.
	Unit string
	// Method says how the curve was measured and what was taken away from it.
	Method string
	// Date is when it was measured.
	Date string
}

// idleCurveJSON is the file form of an IdleCurve.
type idleCurveJSON struct {
	Unit   string            `json:"unit"`
	Points []json.RawMessage `json:"points"`
	Method string            `json:"method"`
	Date   string            `json:"date"`
}

// idlePointJSON is the file form of a point: the idle time and the quantiles, in the curve's
// unit.
type idlePointJSON struct {
	Idle *json.Number `json:"idle"`
	quantilesJSON
}

// parseIdleCurve reads the curve at field of file: an unknown unit or member, a missing method,
// date or idle time, no points, an idle time that is negative, not finite, absurd or not above
// the one before, and a point's quantiles as parseFigure refuses them are errors naming the
// field ("figures.ipi_idle.points[2].idle").
func parseIdleCurve(file, field string, raw json.RawMessage) (IdleCurve, error) {
	bad := func(sub, format string, args ...any) (IdleCurve, error) {
		return IdleCurve{}, &ProfileError{File: file, Field: field + sub, Msg: fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var cj idleCurveJSON
	if err := dec.Decode(&cj); err != nil {
		return bad("", "%v", err)
	}
	scale, ok := units[cj.Unit]
	switch {
	case !ok:
		return bad(".unit", "%q, want ns, us, µs, ms or s", cj.Unit)
	case strings.TrimSpace(cj.Method) == "":
		return bad(".method", "missing: say how the curve was measured")
	case strings.TrimSpace(cj.Date) == "":
		return bad(".date", "missing: say when the curve was measured")
	case len(cj.Points) == 0:
		return bad(".points", "none: give at least one idle time and its figure")
	}
	limit, _ := ProfileFigureLimit("ipi")
	c := IdleCurve{Unit: cj.Unit, Method: cj.Method, Date: cj.Date, Points: make([]IdleIPI, len(cj.Points))}
	for i, rp := range cj.Points {
		at := fmt.Sprintf(".points[%d]", i)
		pd := json.NewDecoder(bytes.NewReader(rp))
		pd.DisallowUnknownFields()
		pd.UseNumber()
		var pj idlePointJSON
		if err := pd.Decode(&pj); err != nil {
			return bad(at, "%v", err)
		}
		if pj.Idle == nil {
			return bad(at+".idle", "missing: how long the CPU had been idle")
		}
		v, err := strconv.ParseFloat(string(*pj.Idle), 64)
		ns := v * scale
		switch {
		case err != nil && !math.IsInf(v, 0):
			return bad(at+".idle", "%s is not a number", *pj.Idle)
		case math.IsInf(ns, 0) || math.IsNaN(ns):
			return bad(at+".idle", "%s %s is not a finite idle time", *pj.Idle, cj.Unit)
		case ns < 0:
			return bad(at+".idle", "negative: %s %s", *pj.Idle, cj.Unit)
		case ns > float64(maxCurveIdle):
			return bad(at+".idle", "%s %s is absurd (above %v)", *pj.Idle, cj.Unit, maxCurveIdle)
		}
		idle := time.Duration(math.Round(ns))
		if i > 0 && idle <= c.Points[i-1].Idle {
			return bad(at+".idle", "%v not above the point before's (%v): the points go in ascending order of idle time", idle, c.Points[i-1].Idle)
		}
		fj := figureJSON{Unit: cj.Unit, quantilesJSON: pj.quantilesJSON, Method: cj.Method, Date: cj.Date}
		f, err := figureOf(file, field+at, &fj, limit)
		if err != nil {
			return IdleCurve{}, err
		}
		c.Points[i] = IdleIPI{Idle: idle, Cost: f.Cost}
	}
	return c, nil
}

// marshal returns c in the file form parseIdleCurve reads, in µs with nanosecond precision.
func (c *IdleCurve) marshal() ([]byte, error) {
	cj := idleCurveJSON{Unit: "us", Method: c.Method, Date: c.Date, Points: make([]json.RawMessage, len(c.Points))}
	for i, p := range c.Points {
		var fj figureJSON
		setQuantiles(&fj, p.Cost)
		b, err := json.Marshal(idlePointJSON{Idle: usNumber(p.Idle), quantilesJSON: fj.quantilesJSON})
		if err != nil {
			return nil, err
		}
		cj.Points[i] = b
	}
	return json.Marshal(cj)
}
