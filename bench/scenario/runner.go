// This file implements the runner: the cells of a sweep, run on a bounded pool of workers.

package scenario

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
)

// Options choose what a run of a scenario covers and how.
type Options struct {
	// Reps is the number of seeded repetitions per cell; 0 means the scenario's Reps.
	Reps int
	// Set fixes parameter values for every cell (over the defaults). A parameter the grid sweeps
	// cannot also be set: NewPlan refuses it.
	Set Values
	// Grid sweeps parameters: every combination of the listed values (each listed once) is a grid point, in the
	// order of the parameter names sorted and then of the values as given. Nil means the
	// scenario's Sweep; an empty non-nil map means no sweep.
	Grid map[string][]float64
	// Small starts from the scenario's Small values and SmallReps instead of its defaults.
	Small bool
	// Workers bounds the goroutines running cells; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Progress, if not nil, is called after each cell with the number done and the total, from
	// the goroutine that called Run, never concurrently.
	Progress func(done, total int)
	// Profile is the machine profile every cell charges; nil means the scenario's Profile, or
	// sim.DefaultProfile.
	Profile *sim.Profile
	// Context, if not nil, stops Plan.Run once it is done: no cell starts after that, the cells
	// running stop within milliseconds (sim.Stop.Context), and Run returns the context's cause.
	Context context.Context
}

// A Cell is one run: a grid point, a row and a repetition. Its Seed is the simulator's seed,
// Rep+1: the same in every row and grid point, so that rows differ by their policy and
// parameters, not by their random numbers.
type Cell struct {
	Index int
	Point int
	Row   int
	Rep   int
	// Values are the parameter values of the run: defaults, Options.Set, the grid point and
	// the row's Set, each over the ones before.
	Values Values
}

// Seed returns the simulator seed of c.
func (c *Cell) Seed() uint64 { return uint64(c.Rep) + 1 }

// A Plan is the list of cells of a scenario under some options, in a fixed order: by grid
// point, then row, then repetition.
type Plan struct {
	Scenario *Scenario
	// Profile is the machine profile the cells charge (Options.Profile, the scenario's, or
	// sim.DefaultProfile; its latencies only if the scenario says LatenciesOnly).
	Profile *sim.Profile
	Reps    int
	Points  []Values
	Cells   []Cell
}

// NewPlan returns the plan of s under o, or an error naming a bad option.
// NewPlan panics if s is nil.
func NewPlan(s *Scenario, o Options) (*Plan, error) {
	if s == nil {
		panic("scenario: NewPlan of a nil scenario")
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	base := s.Defaults()
	reps := s.Reps
	if o.Small {
		for k, v := range s.Small {
			base[k] = v
		}
		if s.SmallReps > 0 {
			reps = s.SmallReps
		}
	}
	if o.Reps < 0 {
		return nil, fmt.Errorf("scenario %s: Reps %d < 0", s.Name, o.Reps)
	}
	if o.Reps > 0 {
		reps = o.Reps
	}
	if err := s.checkValues(o.Set); err != nil {
		return nil, err
	}
	for k, v := range o.Set {
		base[k] = v
	}
	grid := o.Grid
	if grid == nil {
		grid = s.Sweep
	}
	points, err := s.gridPoints(grid, o.Set)
	if err != nil {
		return nil, err
	}
	prof := o.Profile
	if prof == nil {
		name := cmp.Or(s.Profile, sim.DefaultProfileName)
		var ok bool
		if prof, ok = sim.BuiltinProfile(name); !ok {
			return nil, fmt.Errorf("scenario %s: no profile %q (want one of %v)", s.Name, name, sim.BuiltinProfiles())
		}
	}
	if s.LatenciesOnly {
		prof = prof.Latencies()
	}
	pl := &Plan{Scenario: s, Profile: prof, Reps: reps, Points: points}
	for pi, p := range points {
		for ri := range s.Rows {
			v := base.clone()
			for k, x := range p {
				v[k] = x
			}
			for k, x := range s.Rows[ri].Set {
				v[k] = x
			}
			for k := 0; k < reps; k++ {
				pl.Cells = append(pl.Cells, Cell{Index: len(pl.Cells), Point: pi, Row: ri, Rep: k, Values: v})
			}
		}
	}
	return pl, nil
}

// gridPoints checks grid (no parameter both swept and in set, each with values that are
// valid and distinct) and returns its points: every combination of its values, the parameters
// in name order.
func (s *Scenario) gridPoints(grid map[string][]float64, set Values) ([]Values, error) {
	names := make([]string, 0, len(grid))
	for k, vs := range grid {
		if _, ok := set[k]; ok {
			return nil, fmt.Errorf("scenario %s: parameter %s is both set and swept", s.Name, k)
		}
		if len(vs) == 0 {
			return nil, fmt.Errorf("scenario %s: grid parameter %s has no values", s.Name, k)
		}
		seen := map[float64]bool{}
		for _, v := range vs {
			if err := s.checkValues(Values{k: v}); err != nil {
				return nil, err
			}
			if seen[v] {
				return nil, fmt.Errorf("scenario %s: grid parameter %s lists %g twice", s.Name, k, v)
			}
			seen[v] = true
		}
		names = append(names, k)
	}
	slices.Sort(names)
	points := []Values{{}}
	for _, k := range names {
		var next []Values
		for _, p := range points {
			for _, v := range grid[k] {
				q := p.clone()
				q[k] = v
				next = append(next, q)
			}
		}
		points = next
	}
	return points, nil
}

// Shard returns the indices of the cells that shard k of n runs: every n-th cell starting at
// k, so that each shard gets a share of every row. It returns an error unless 0 <= k < n.
func (pl *Plan) Shard(k, n int) ([]int, error) {
	if n < 1 || k < 0 || k >= n {
		return nil, fmt.Errorf("scenario: shard %d of %d: need 0 <= k < n", k, n)
	}
	var out []int
	for i := k; i < len(pl.Cells); i += n {
		out = append(out, i)
	}
	return out, nil
}

// All returns the indices of every cell.
func (pl *Plan) All() []int {
	out := make([]int, len(pl.Cells))
	for i := range out {
		out[i] = i
	}
	return out
}

// Run runs the cells of pl whose indices are given, on up to o.Workers goroutines, and returns
// their results in the order of idx whatever order they finished in. Once a cell fails, or
// o.Context is done, no further cell starts (a bound a cell reaches, such as MaxCellEvents, ends
// the whole run after the cells already running, not after every cell has reached it). The error
// is that of the first failing cell in idx's order among those that ran, or the context's cause.
func (pl *Plan) Run(idx []int, o Options) ([]CellResult, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, len(idx)))
	out := make([]CellResult, len(idx))
	errs := make([]error, len(idx))
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	jobs := make(chan int)
	done := make(chan int)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if failed.Load() || ctx.Err() != nil {
					done <- j // handed over before the failure or the end: not started
					continue
				}
				out[j], errs[j] = pl.runCell(ctx, &pl.Cells[idx[j]])
				if errs[j] != nil {
					failed.Store(true)
				}
				done <- j
			}
		}()
	}
	go func() {
		for j := range idx {
			if failed.Load() || ctx.Err() != nil {
				break
			}
			if idx[j] < 0 || idx[j] >= len(pl.Cells) {
				errs[j] = fmt.Errorf("scenario: cell %d outside 0..%d", idx[j], len(pl.Cells)-1)
				failed.Store(true)
				done <- j
				continue
			}
			jobs <- j
		}
		close(jobs)
		wg.Wait()
		close(done)
	}()
	n := 0
	for range done {
		n++
		if o.Progress != nil {
			o.Progress(n, len(idx))
		}
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	for j, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("scenario %s: cell %d: %w", pl.Scenario.Name, idx[j], err)
		}
	}
	return out, nil
}

// MaxCellEvents bounds the events one cell may simulate: each parameter's range is checked
// before any work (Param.Check), but their product is not (seed000-buildkernel's jobs ×
// job_ms × blocks_per_s at their maxima is 10^12 events). At the tens of millions of events a
// second the simulator handles, a minute or so; the seeds' cells take at most a few million.
const MaxCellEvents = 1_000_000_000

// cellEvents is the bound runCell applies: MaxCellEvents, lowered by the tests.
var cellEvents uint64 = MaxCellEvents

// runCell runs one cell.
func (pl *Plan) runCell(ctx context.Context, c *Cell) (CellResult, error) {
	s := pl.Scenario
	row := &s.Rows[c.Row]
	setup, err := s.Build(c.Values, row)
	if err != nil {
		return CellResult{}, err
	}
	setup.Config.Seed = c.Seed()
	setup.Values = c.Values
	charge(pl.Profile, &setup.Config)
	setup.Config.Costs.Switch = addCost(setup.Config.Costs.Switch, setup.SwitchExtra)
	p, err := presets.New(row.Policy)
	if err != nil {
		return CellResult{}, err
	}
	m, err := sim.New(setup.Config, p, setup.Workload)
	if err != nil {
		return CellResult{}, err
	}
	ending, err := m.RunUntil(sim.Stop{Time: setup.Until, Threads: setup.StopWhenExited, Events: cellEvents, Context: ctx})
	if err != nil {
		return CellResult{}, err
	}
	if ending == sim.EventsReached {
		return CellResult{}, fmt.Errorf("more than %d events, the bound of one cell's work (MaxCellEvents): parameters whose product asks for too much work (jobs × job_ms × blocks_per_s, records, seconds)", cellEvents)
	}
	r := m.Result()
	if err := r.Err(); err != nil {
		return CellResult{}, err
	}
	res := CellResult{Scenario: s.Name, Profile: pl.Profile.Name, Cell: c.Index, Point: pl.Points[c.Point], Row: row.Key(), Rep: c.Rep,
		Metrics: make([]float64, len(s.Metrics))}
	for i, mt := range s.Metrics {
		v := mt.Of(r, &setup)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return CellResult{}, fmt.Errorf("metric %s is %g", mt.Name, v)
		}
		res.Metrics[i] = v
	}
	return res, nil
}

// Run runs every cell of s under o and returns the report.
func Run(s *Scenario, o Options) (*Report, error) {
	pl, err := NewPlan(s, o)
	if err != nil {
		return nil, err
	}
	res, err := pl.Run(pl.All(), o)
	if err != nil {
		return nil, err
	}
	return pl.Merge(res)
}

// charge puts the costs of profile p into cfg, except those cfg already sets (not zero): a
// scenario's own cost parameter wins over the profile.
func charge(p *sim.Profile, cfg *sim.Config) {
	own := cfg.Costs
	exit := cfg.Idle.ExitLatency
	p.Apply(cfg)
	keep := func(dst *sim.Cost, v sim.Cost) {
		if !v.IsZero() {
			*dst = v
		}
	}
	k := &cfg.Costs
	keep(&k.Wakeup, own.Wakeup)
	keep(&k.IPI, own.IPI)
	keep(&k.IPISend, own.IPISend)
	keep(&k.Timer, own.Timer)
	keep(&k.Switch, own.Switch)
	keep(&k.SwitchMM, own.SwitchMM)
	keep(&k.Refill, own.Refill)
	keep(&k.Migration.SMT, own.Migration.SMT)
	keep(&k.Migration.LLC, own.Migration.LLC)
	keep(&k.Migration.Node, own.Migration.Node)
	keep(&k.Migration.Remote, own.Migration.Remote)
	keep(&k.Tick, own.Tick)
	keep(&cfg.Idle.ExitLatency, exit)
}

// addCost returns c with d added to each of its quantiles (P995 and P999 only where c has
// them), so that every draw of c is d longer: the zero cost becomes the fixed d, and d 0
// returns c.
func addCost(c sim.Cost, d time.Duration) sim.Cost {
	switch {
	case d == 0:
		return c
	case c.IsZero():
		return sim.Fixed(d)
	}
	c.Min, c.P50, c.P90, c.P99, c.Max = c.Min+d, c.P50+d, c.P90+d, c.P99+d, c.Max+d
	if c.P999 != 0 {
		c.P999 += d
		if c.P995 != 0 {
			c.P995 += d
		}
	}
	return c
}
