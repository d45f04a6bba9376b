package main

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/cfs"

	"github.com/schedkit/schedkit/examples/internal/golden"
)

// TestGolden keeps the lesson honest: its output must match the reviewed golden file byte for
// byte. Run go test ./examples/fairshare -update after an intended change and review the diff.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	run(&buf)
	golden.Check(t, "testdata/fairshare.golden", buf.Bytes())
}

// TestSharesFollowWeights is the fairness property: tenants that always have work, with random
// weights and random job lengths, receive worker time within 2% (relative) of their weight's
// share over a busy period of 2000 average jobs per tenant.
func TestSharesFollowWeights(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 7))
		p := NewPool(DefaultCredit)
		n := 2 + rng.IntN(6)
		ts := make([]*Tenant, n)
		weights := make([]uint64, n)
		var sum uint64
		for i := range ts {
			weights[i] = uint64(1 + rng.IntN(8192))
			sum += weights[i]
			ts[i] = p.AddTenant("t", weights[i])
			for range 3 {
				p.Submit(ts[i], Job{})
			}
		}
		var total time.Duration
		for range 2000 * n {
			tn, _, ok := p.Next()
			if !ok {
				t.Fatalf("seed %d: pool empty with CPU-bound tenants", seed)
			}
			d := time.Duration(100_000 + rng.IntN(900_000)) // 0.1-1 ms
			p.Done(tn, d)
			p.Submit(tn, Job{}) // always more work
			total += d
		}
		for i, tn := range ts {
			want := float64(weights[i]) / float64(sum)
			got := float64(tn.Served()) / float64(total)
			// One job of slack: a tenant is at most one job ahead of its fair share.
			slack := 1e-3/float64(total.Seconds()) + 0.02*want
			if got < want-slack || got > want+slack {
				t.Errorf("seed %d: tenant %d weight %d/%d got %.4f of the time, want %.4f ± %.4f", seed, i, weights[i], sum, got, want, slack)
			}
		}
	}
}

// TestChargeIsCalcDeltaFair checks the charge against the kernel's arithmetic: 1 ms at weight
// 1024 is 1 ms of vruntime, at 15 (nice 19's weight) 68.27 ms, as calc_delta_fair computes
// them. A tenant's weight, like a group entity's, carries no table inverse, so __calc_delta
// uses 0xFFFFFFFF/2048 = 2097151 for weight 2048 and charges 499999 ns, not 500000
// (cfs/calc_test.go has the kernel-derived table).
func TestChargeIsCalcDeltaFair(t *testing.T) {
	for _, tc := range []struct {
		weight uint64
		want   uint64
	}{{1024, 1_000_000}, {2048, 499_999}, {15, 68_266_666}} {
		p := NewPool(DefaultCredit)
		tn := p.AddTenant("x", tc.weight)
		p.Submit(tn, Job{})
		p.Next()
		before := tn.Vruntime()
		p.Done(tn, time.Millisecond)
		if got := tn.Vruntime() - before; got != tc.want {
			t.Errorf("weight %d: 1 ms charged %d ns of vruntime, want %d", tc.weight, got, tc.want)
		}
	}
}

// TestReturningTenantCredit checks the placement rule: a tenant back from idle is placed at
// most the credit behind min_vruntime, however long it was away, and a tenant that is ahead
// keeps its own vruntime.
func TestReturningTenantCredit(t *testing.T) {
	p := NewPool(DefaultCredit)
	busy, sleeper, ahead := p.AddTenant("busy", 1024), p.AddTenant("sleeper", 1024), p.AddTenant("ahead", 1024)
	// ahead runs for an hour while busy waits, so min_vruntime stays with busy; then ahead has
	// nothing queued and leaves the timeline, far ahead.
	p.Submit(ahead, Job{})
	p.Submit(busy, Job{})
	if tn, _, _ := p.Next(); tn != ahead {
		t.Fatalf("Next = %s, want ahead (queued first at the same vruntime)", tn.Name)
	}
	p.Done(ahead, time.Hour)
	for range 10_000 { // 10 s of work while sleeper has nothing queued
		tn, _, _ := p.Next()
		p.Done(tn, time.Millisecond)
		p.Submit(tn, Job{})
	}
	p.Submit(sleeper, Job{})
	if got, want := p.MinVruntime()-sleeper.Vruntime(), uint64(DefaultCredit); got != want {
		t.Errorf("returning tenant placed %d ns behind min_vruntime, want %d", got, want)
	}
	v := ahead.Vruntime()
	p.Submit(ahead, Job{})
	if ahead.Vruntime() != v {
		t.Errorf("a tenant ahead of min_vruntime moved from %d to %d on return", v, ahead.Vruntime())
	}
	// The sleeper's head start is worth DefaultCredit of worker time before busy runs again.
	var got time.Duration
	for {
		tn, _, _ := p.Next()
		if tn != sleeper {
			break
		}
		p.Done(tn, 100*time.Microsecond)
		p.Submit(tn, Job{})
		got += 100 * time.Microsecond
	}
	if got < DefaultCredit || got > DefaultCredit+200*time.Microsecond {
		t.Errorf("returning tenant ran %v before the busy one, want about %v", got, DefaultCredit)
	}
}

// TestVruntimeWraps runs the pool across the uint64 wrap of vruntime (the pool starts 1<<20 ns
// before it, as the kernel's min_vruntime does): order and min_vruntime survive it.
func TestVruntimeWraps(t *testing.T) {
	p := NewPool(DefaultCredit)
	a, b := p.AddTenant("a", 1024), p.AddTenant("b", 3072)
	p.Submit(a, Job{})
	p.Submit(b, Job{})
	if p.MinVruntime() != cfs.InitialMinVruntime {
		t.Fatalf("min_vruntime starts at %d, want %d", p.MinVruntime(), cfs.InitialMinVruntime)
	}
	var served [2]time.Duration
	for range 4000 {
		tn, _, _ := p.Next()
		p.Done(tn, 10*time.Microsecond)
		p.Submit(tn, Job{})
		if tn == a {
			served[0] += 10 * time.Microsecond
		} else {
			served[1] += 10 * time.Microsecond
		}
	}
	if m := p.MinVruntime(); m >= cfs.InitialMinVruntime || m > 1<<40 {
		t.Fatalf("min_vruntime %d did not wrap past 0", m)
	}
	if r := float64(served[1]) / float64(served[0]); r < 2.9 || r > 3.1 {
		t.Errorf("after the wrap weight 3072 got %.2f× weight 1024's time, want 3", r)
	}
}

// TestConcurrent uses the pool from many goroutines at once (run with -race): producers
// submit, workers take and charge, and every submitted job is handed out exactly once.
func TestConcurrent(t *testing.T) {
	p := NewPool(DefaultCredit)
	ts := []*Tenant{p.AddTenant("a", 100), p.AddTenant("b", 200), p.AddTenant("c", 300)}
	const per = 3000
	var wg sync.WaitGroup
	seen := make([]int32, len(ts)*per)
	var mu sync.Mutex
	for i, tn := range ts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range per {
				p.Submit(tn, Job{ID: i*per + k})
			}
		}()
	}
	var taken sync.WaitGroup
	for range 4 {
		taken.Add(1)
		go func() {
			defer taken.Done()
			for idle := 0; idle < 1000; {
				tn, j, ok := p.Next()
				if !ok {
					idle++
					continue
				}
				idle = 0
				mu.Lock()
				seen[j.ID]++
				mu.Unlock()
				p.Done(tn, time.Microsecond)
			}
		}()
	}
	wg.Wait()
	taken.Wait()
	for tn, j, ok := p.Next(); ok; tn, j, ok = p.Next() {
		seen[j.ID]++
		p.Done(tn, time.Microsecond)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("job %d handed out %d times", id, n)
		}
	}
}

// TestMisuse lists the programmer errors the pool reports.
func TestMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"negative credit", func() { NewPool(-1) }},
		{"weight 0", func() { NewPool(0).AddTenant("x", 0) }},
		{"weight too large", func() { NewPool(0).AddTenant("x", 1<<20+1) }},
		{"negative duration", func() { p := NewPool(0); p.Done(p.AddTenant("x", 1), -1) }},
		{"done without a job", func() { p := NewPool(0); p.Done(p.AddTenant("x", 1), 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tc.name)
				}
			}()
			tc.f()
		})
	}
}
