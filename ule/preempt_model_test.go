package ule

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// refShouldPreempt is sched_shouldpreempt written as one function that builds its reason as it
// goes, as ShouldPreempt was before its decision (preemptRule) and its reason (preemptWhy) were
// taken apart for the additions' common path.
func refShouldPreempt(pri, cpri int, remote bool, p *Params) (bool, PreemptReason) {
	r := PreemptReason{Pri: pri, CPri: cpri, Thresh: p.PreemptThresh, AtThresh: p.PreemptAtThresh, Remote: remote}
	if pri >= cpri {
		r.Rule = PreemptNotBetter
		return false, r
	}
	if cpri >= PriMinIdle {
		r.Rule = PreemptIdle
		return true, r
	}
	if p.PreemptThresh == 0 {
		r.Rule = PreemptDisabled
		return false, r
	}
	if pri < p.PreemptThresh || (p.PreemptAtThresh && pri == p.PreemptThresh) {
		r.Rule = PreemptThreshold
		return true, r
	}
	if l := p.Layout(); remote && pri <= int(l.MaxInteract) && cpri > int(l.MaxInteract) {
		r.Rule = PreemptRemoteInteract
		return true, r
	}
	r.Rule = PreemptNo
	return false, r
}

// refNotifyThread is tdq_notify (NotifyThread, and Notify without NotifyRunning) on
// refShouldPreempt.
func refNotifyThread(c *CPUState, t *Thread, oldLowPri uint8) (Kick, PreemptReason) {
	pri, cpri := int(c.LowPri()), int(oldLowPri)
	if c.p.NotifyRunning {
		pri, cpri = int(t.Priority), int(c.curPriority())
	}
	if c.OwePreempt {
		return KickNone, PreemptReason{Rule: PreemptNo, Pri: pri, CPri: cpri, Remote: true}
	}
	ok, why := refShouldPreempt(pri, cpri, true, c.p)
	switch {
	case !ok:
		return KickNone, why
	case c.Cur == nil:
		return KickIdle, why
	}
	return KickPreempt, why
}

// ShouldPreempt, SetPreempt, Notify and NotifyThread, and the short reasons System.add passes
// up (preemptWhy), decide and explain as the reference does: every pair of priorities
// -1..256 for ShouldPreempt and SetPreempt under the presets' Params (thresholds inclusive and
// not, 0, 224), and random CPU states for tdq_notify, with a pending preemption or not, idle or
// busy, in both forms (NotifyRunning).
func TestPreemptMatchesReference(t *testing.T) {
	var params []Params
	for _, name := range Presets() {
		p, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		params = append(params, p)
		p.PreemptThresh = 0
		params = append(params, p)
	}
	for _, p := range params {
		for pri := -1; pri <= 256; pri++ {
			for cpri := -1; cpri <= 256; cpri++ {
				for _, remote := range []bool{false, true} {
					gok, gwhy := ShouldPreempt(pri, cpri, remote, &p)
					wok, wwhy := refShouldPreempt(pri, cpri, remote, &p)
					if gok != wok || gwhy != wwhy {
						t.Fatalf("%s: ShouldPreempt(%d, %d, %t) = %t %+v, want %t %+v", p.Name, pri, cpri, remote, gok, gwhy, wok, wwhy)
					}
				}
				wk := KickNone
				ok, why := refShouldPreempt(pri, cpri, false, &p)
				switch {
				case ok:
					wk = KickPreempt
				case pri < cpri:
					wk = KickAST
				}
				if k, w := SetPreempt(pri, cpri, &p); k != wk || w != why {
					t.Fatalf("%s: SetPreempt(%d, %d) = %v %+v, want %v %+v", p.Name, pri, cpri, k, w, wk, why)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(8, 8))
	for i := range 20000 {
		p := params[i%len(params)]
		p.NotifyRunning = r.IntN(2) == 0
		c := NewCPUState(0, &p)
		c.setLowPri(uint8(r.IntN(256)))
		c.OwePreempt = r.IntN(4) == 0
		if r.IntN(3) != 0 {
			c.Cur = &Thread{Priority: uint8(r.IntN(256))}
		}
		th := &Thread{Priority: uint8(r.IntN(256)), Affinity: topology.CPUSetOf(0)}
		old := uint8(r.IntN(256))
		gk, gwhy := NotifyThread(c, th, old)
		wk, wwhy := refNotifyThread(c, th, old)
		if gk != wk || gwhy != wwhy {
			t.Fatalf("%s NotifyRunning %t: NotifyThread = %v %+v, want %v %+v", p.Name, p.NotifyRunning, gk, gwhy, wk, wwhy)
		}
		if !p.NotifyRunning {
			if k, why := Notify(c, old); k != wk || why != wwhy {
				t.Fatalf("%s: Notify = %v %+v, want %v %+v", p.Name, k, why, wk, wwhy)
			}
		}
	}
}
