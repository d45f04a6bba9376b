package topology_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/topology"
)

func TestCPUString(t *testing.T) {
	for _, tc := range []struct {
		c    topology.CPU
		want string
	}{{0, "cpu0"}, {3, "cpu3"}, {1023, "cpu1023"}} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("CPU(%d).String() = %q, want %q", uint16(tc.c), got, tc.want)
		}
	}
}

// checkSet compares every query of s with the model m.
func checkSet(t testing.TB, s topology.CPUSet, m modelSet) {
	t.Helper()
	if s.Count() != len(m) || s.IsEmpty() != (len(m) == 0) {
		t.Fatalf("Count, IsEmpty = %d, %t; want %d, %t", s.Count(), s.IsEmpty(), len(m), len(m) == 0)
	}
	first, ok := s.First()
	if ok != (len(m) > 0) || (ok && first != m[0]) {
		t.Fatalf("First() = %v, %t; model %v", first, ok, m)
	}
	last, ok := s.Last()
	if ok != (len(m) > 0) || (ok && last != m[len(m)-1]) {
		t.Fatalf("Last() = %v, %t; model %v", last, ok, m)
	}
	if got := slices.Collect(s.All()); !slices.Equal(got, m) && len(m)+len(got) > 0 {
		t.Fatalf("All() = %v, want %v", got, m)
	}
	back := slices.Collect(s.Backward())
	slices.Reverse(back)
	if !slices.Equal(back, m) && len(m)+len(back) > 0 {
		t.Fatalf("Backward() reversed = %v, want %v", back, m)
	}
	var walked modelSet
	for c, ok := s.First(); ok; c, ok = s.After(c) {
		walked = append(walked, c)
	}
	if !slices.Equal(walked, m) {
		t.Fatalf("First/After walk = %v, want %v", walked, m)
	}
	var down modelSet
	for c, ok := s.Last(); ok; c, ok = s.Before(c) {
		down = append(down, c)
	}
	slices.Reverse(down)
	if !slices.Equal(down, m) {
		t.Fatalf("Last/Before walk reversed = %v, want %v", down, m)
	}
	// The summary of the words in use is canonical: the same members, the same value.
	if rebuilt := topology.CPUSetOf(m...); rebuilt != s {
		t.Fatalf("%v is not == the set of the same members built afresh", s)
	}
	if got := s.String(); got != m.cpulist() {
		t.Fatalf("String() = %q, want %q", got, m.cpulist())
	}
	back2, err := topology.ParseCPUList(s.String())
	if err != nil || back2 != s {
		t.Fatalf("ParseCPUList(%q) = {%s}, %v; want the set back", s.String(), back2, err)
	}
}

func TestCPUSetExhaustiveSmall(t *testing.T) {
	// Every subset of a 10-CPU window placed across a word boundary.
	for _, base := range []topology.CPU{0, 59, 1014} {
		for mask := range 1 << 10 {
			var s topology.CPUSet
			var m modelSet
			for b := range 10 {
				if mask&(1<<b) != 0 {
					s.Add(base + topology.CPU(b))
					m.add(base + topology.CPU(b))
				}
			}
			checkSet(t, s, m)
			for c := base; c < base+10; c++ {
				a, aok := s.After(c)
				ma, mok := m.after(c)
				b, bok := s.Before(c)
				mb, mbok := m.before(c)
				if a != ma || aok != mok || b != mb || bok != mbok || s.Has(c) != m.has(c) {
					t.Fatalf("set %v at %v: After = %v,%t Before = %v,%t Has = %t; want %v,%t %v,%t %t",
						m, c, a, aok, b, bok, s.Has(c), ma, mok, mb, mbok, m.has(c))
				}
			}
		}
	}
}

func TestCPUSetBoundaries(t *testing.T) {
	var s topology.CPUSet
	if c, ok := s.After(topology.MaxCPUs - 1); ok {
		t.Errorf("empty After(1023) = %v, true", c)
	}
	if c, ok := s.Before(0); ok {
		t.Errorf("empty Before(0) = %v, true", c)
	}
	s.Add(topology.MaxCPUs - 1)
	s.Add(0)
	if c, ok := s.After(0); !ok || c != topology.MaxCPUs-1 {
		t.Errorf("After(0) = %v, %t; want cpu1023, true", c, ok)
	}
	if c, ok := s.Before(topology.MaxCPUs - 1); !ok || c != 0 {
		t.Errorf("Before(1023) = %v, %t; want cpu0, true", c, ok)
	}
	if c, ok := s.After(topology.MaxCPUs - 1); ok {
		t.Errorf("After(1023) = %v, true; want none", c)
	}
	if s.Has(topology.MaxCPUs) || s.Has(65535) {
		t.Error("Has of an id past MaxCPUs = true")
	}
	if c, ok := s.Before(65535); !ok || c != topology.MaxCPUs-1 {
		t.Errorf("Before(65535) = %v, %t; want cpu1023, true", c, ok)
	}
	if got := topology.CPURange(5, 3); !got.IsEmpty() {
		t.Errorf("CPURange(5, 3) = {%s}, want empty", got)
	}
	if full := topology.CPURange(0, topology.MaxCPUs-1); full.Count() != topology.MaxCPUs {
		got := full.Count()
		t.Errorf("CPURange(0, 1023).Count() = %d", got)
	}
	for lo := topology.CPU(0); lo < 130; lo += 7 {
		for hi := lo; hi < 200; hi += 11 {
			var m modelSet
			for c := lo; c <= hi; c++ {
				m = append(m, c)
			}
			checkSet(t, topology.CPURange(lo, hi), m)
		}
	}
}

func TestCPUSetAlgebra(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var a, b modelSet
		for range r.IntN(40) {
			a.add(topology.CPU(r.IntN(topology.MaxCPUs)))
			b.add(topology.CPU(r.IntN(topology.MaxCPUs)))
		}
		if r.IntN(3) == 0 {
			b = slices.Clone(a)
		}
		sa, sb := a.set(), b.set()
		var union, inter, diff modelSet
		for _, c := range a {
			union.add(c)
			if b.has(c) {
				inter.add(c)
			} else {
				diff.add(c)
			}
		}
		for _, c := range b {
			union.add(c)
		}
		checkSet(t, sa.Union(sb), union)
		in := sa
		in.AddSet(&sb)
		checkSet(t, in, union)
		checkSet(t, sa.Intersect(sb), inter)
		checkSet(t, sa.Difference(sb), diff)
		require.Equal(t, len(inter) > 0, sa.Overlaps(sb), "Overlaps(%v, %v)", a, b)
		require.Equal(t, len(diff) == 0, sa.SubsetOf(sb), "SubsetOf(%v, %v)", a, b)
		require.Equal(t, slices.Equal(a, b), sa.Equal(sb), "Equal(%v, %v)", a, b)
	}
}

func TestCPUSetMisuse(t *testing.T) {
	// Add and Remove panic with an error, whose text is formatted only when printed, so that
	// they inline; CPURange with a string.
	for _, tc := range []struct {
		name  string
		f     func()
		msg   string
		isErr bool
	}{
		{"Add", func() { var s topology.CPUSet; s.Add(topology.MaxCPUs) }, "topology: CPUSet.Add: cpu1024 out of range", true},
		{"Remove", func() { var s topology.CPUSet; s.Remove(2000) }, "topology: CPUSet.Remove: cpu2000 out of range", true},
		{"CPUSetOf", func() { topology.CPUSetOf(1, topology.MaxCPUs) }, "topology: CPUSet.Add: cpu1024 out of range", true},
		{"CPURange", func() { topology.CPURange(0, topology.MaxCPUs) }, "topology: CPURange: cpu1024 out of range", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.isErr {
				require.PanicsWithError(t, tc.msg, tc.f)
			} else {
				require.PanicsWithValue(t, tc.msg, tc.f)
			}
		})
	}
}

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"", ""},
		{"\n", ""},
		{"0", "0"},
		{"0-3,8,10-11\n", "0-3,8,10-11"},
		{"3,1,2", "1-3"},
		{"0-1,1-2", "0-2"},
		{"5-5", "5"},
		{"0-7:2/4", "0-1,4-5"},
		{"0-9:1/3", "0,3,6,9"},
		{"1023", "1023"},
		{" 4-6 ", "4-6"},
	} {
		got, err := topology.ParseCPUList(tc.in)
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseCPUList(%q) = {%s}, %v; want {%s}", tc.in, got, err, tc.want)
		}
	}
}

func TestParseCPUListErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"1024", "offset 0: cpu id 1024 out of range (max 1023)"},
		{"0-99999999999999999999", "offset 2: cpu id 99999999999999999999 out of range"},
		{"3-1", "offset 0: range 3-1 runs backwards"},
		{"a", "offset 0: unexpected 'a', want cpu id"},
		{"1,", "offset 2: missing cpu id at end of list"},
		{",1", "offset 0: unexpected ',', want cpu id"},
		{"1 2", "offset 1: unexpected ' ', want ',' or end of list"},
		{"0-", "offset 2: missing cpu id at end of list"},
		{"0-7:3/2", "offset 0: bad group 3/2: want 0 < used <= group"},
		{"0-7:0/2", "offset 0: bad group 0/2"},
		{"0-7:2", "offset 5: want '/' after used size"},
		{"-1", "offset 0: unexpected '-', want cpu id"},
	} {
		_, err := topology.ParseCPUList(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseCPUList(%q) error = %v, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

func TestCPUSetText(t *testing.T) {
	s := topology.CPUSetOf(0, 1, 2, 7)
	b, err := s.MarshalText()
	require.NoError(t, err)
	require.Equal(t, "0-2,7", string(b))
	var back topology.CPUSet
	require.NoError(t, back.UnmarshalText(b))
	require.Equal(t, s, back)
	require.Error(t, back.UnmarshalText([]byte("x")))
	require.Equal(t, s, back, "a failed UnmarshalText must not change the set")
}

// FuzzCPUSet decodes ops into adds and removes, checking CPUSet against the
// model after each step.
func FuzzCPUSet(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{0xff, 0x03, 0x80, 0x40, 0x01, 0x3f})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s topology.CPUSet
		var m modelSet
		for i := 0; i+1 < len(ops); i += 2 {
			c := topology.CPU(uint16(ops[i])<<8|uint16(ops[i+1])) % topology.MaxCPUs
			if ops[i]&0x80 != 0 {
				s.Remove(c)
				m.remove(c)
			} else {
				s.Add(c)
				m.add(c)
			}
			if s.Has(c) != m.has(c) {
				t.Fatalf("after op %d Has(%v) = %t", i/2, c, s.Has(c))
			}
		}
		checkSet(t, s, m)
	})
}

func ExampleCPUSet() {
	var s topology.CPUSet
	s.Add(3)
	s.Add(0)
	s.Add(1)
	s.Add(2)
	s.Add(8)
	s.Remove(2)
	first, _ := s.First()
	next, _ := s.After(first)
	fmt.Println(s, s.Count(), s.Has(2), first, next)
	// Output: 0-1,3,8 4 false cpu0 cpu1
}

func ExampleCPUSet_After() {
	s := topology.CPUSetOf(1, 5, 64, 700)
	for c, ok := s.First(); ok; c, ok = s.After(c) {
		fmt.Print(c, " ")
	}
	fmt.Println()
	// Output: cpu1 cpu5 cpu64 cpu700
}

// ExampleCPUSet_Word intersects two sets a word at a time, as the kernels' for_each_cpu_and
// does, stopping at the last word a machine of 130 CPUs can use.
func ExampleCPUSet_Word() {
	a, b := topology.CPUSetOf(1, 5, 64, 129), topology.CPUSetOf(5, 64, 100, 129)
	const machineWords = (130 + 63) / 64
	for i := range machineWords {
		for w := a.Word(i) & b.Word(i); w != 0; w &= w - 1 {
			fmt.Print(topology.CPU(64*i+bits.TrailingZeros64(w)), " ")
		}
	}
	fmt.Println()
	// Output: cpu5 cpu64 cpu129
}

// TestCPUSetWord checks Word against Has for every CPU of random sets.
func TestCPUSetWord(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 100 {
		var s topology.CPUSet
		for range r.IntN(200) {
			s.Add(topology.CPU(r.IntN(topology.MaxCPUs)))
		}
		for c := range topology.CPU(topology.MaxCPUs) {
			if got := s.Word(int(c)/64)>>(c%64)&1 == 1; got != s.Has(c) {
				t.Fatalf("Word(%d) bit %d = %t, Has(%v) = %t", c/64, c%64, got, c, s.Has(c))
			}
		}
	}
	require.Panics(t, func() { s := topology.CPUSet{}; s.Word(topology.SetWords) })
}

// WordsFull answers what Has answers for every CPU of the words, on sets full but for a few CPUs
// (missing anywhere, at the ends of a run of words, or none), for every run of words.
func TestCPUSetWordsFull(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	fulls := 0
	for i := range 300 {
		s := topology.CPURange(0, topology.MaxCPUs-1)
		for range r.IntN(3) {
			s.Remove(topology.CPU(r.IntN(topology.MaxCPUs)))
		}
		if i%3 == 0 {
			s = topology.CPURange(topology.CPU(64*r.IntN(8)), topology.CPU(64*(8+r.IntN(8))-1))
		}
		for lo := 0; lo <= topology.SetWords; lo++ {
			for hi := lo; hi <= topology.SetWords; hi++ {
				want := true
				for c := 64 * lo; c < 64*hi; c++ {
					want = want && s.Has(topology.CPU(c))
				}
				if got := s.WordsFull(lo, hi); got != want {
					t.Fatalf("WordsFull(%d, %d) = %t, want %t (set %v)", lo, hi, got, want, s)
				}
				if want && hi-lo >= 5 {
					fulls++
				}
			}
		}
	}
	if fulls == 0 {
		t.Error("no run of five words or more was full")
	}
	for _, w := range [][2]int{{-1, 2}, {3, 2}, {0, topology.SetWords + 1}} {
		require.PanicsWithValue(t, "topology: CPUSet.WordsFull of words outside 0..SetWords", func() { s := topology.CPUSet{}; s.WordsFull(w[0], w[1]) })
	}
}

func ExampleCPUSet_Backward() {
	// ULE searches a group's CPUs from the highest id down.
	for c := range topology.CPURange(4, 7).Backward() {
		fmt.Print(c, " ")
	}
	fmt.Println()
	// Output: cpu7 cpu6 cpu5 cpu4
}

func ExampleParseCPUList() {
	s, err := topology.ParseCPUList("0-3,8,10-11\n")
	fmt.Println(s.Count(), s, err)
	online, _ := topology.ParseCPUList("0-15")
	fmt.Println(online.Difference(s))
	// Output:
	// 7 0-3,8,10-11 <nil>
	// 4-7,9,12-15
}
