package cliflag

import (
	"errors"
	"flag"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// newSet returns a flag set with two strings, an int and two booleans, and their values as
// text by name.
func newSet() (*flag.FlagSet, map[string]func() string) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	op := fs.String("op", "value", "")
	n := fs.Int("n", 0, "")
	until := fs.String("until", "1s", "")
	v := fs.Bool("v", false, "")
	q := fs.Bool("q", false, "")
	return fs, map[string]func() string{
		"op": func() string { return *op }, "n": func() string { return strconv.Itoa(*n) },
		"until": func() string { return *until }, "v": func() string { return strconv.FormatBool(*v) },
		"q": func() string { return strconv.FormatBool(*q) },
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		pos  []string
		vals map[string]string
	}{
		{"flags first", []string{"-op", "x", "-v", "a.txt", "b.txt"}, []string{"a.txt", "b.txt"}, map[string]string{"op": "x", "v": "true"}},
		{"flags last", []string{"a.txt", "b.txt", "-op", "x", "-v"}, []string{"a.txt", "b.txt"}, map[string]string{"op": "x", "v": "true"}},
		{"flags between", []string{"a.txt", "-n=3", "b.txt", "--until", "2s"}, []string{"a.txt", "b.txt"}, map[string]string{"n": "3", "until": "2s"}},
		{"negative value", []string{"w.wl", "-n", "-5"}, []string{"w.wl"}, map[string]string{"n": "-5"}},
		{"dash value", []string{"-op", "--", "w.wl", "-q"}, []string{"w.wl"}, map[string]string{"op": "--", "q": "true"}},
		{"stdin", []string{"-", "-v", "-"}, []string{"-", "-"}, map[string]string{"v": "true"}},
		{"double dash ends flags", []string{"-v", "--", "-q", "-op"}, []string{"-q", "-op"}, map[string]string{"v": "true", "q": "false", "op": "value"}},
		{"bool with value", []string{"a", "-v=false", "-q=true"}, []string{"a"}, map[string]string{"v": "false", "q": "true"}},
		{"none", nil, nil, map[string]string{"op": "value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, get := newSet()
			pos, err := Parse(fs, tc.args)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tc.args, err)
			}
			if !slices.Equal(pos, tc.pos) || !slices.Equal(fs.Args(), tc.pos) {
				t.Errorf("Parse(%q) = %q (fs.Args %q), want %q", tc.args, pos, fs.Args(), tc.pos)
			}
			for k, want := range tc.vals {
				if got := get[k](); got != want {
					t.Errorf("Parse(%q): -%s = %q, want %q", tc.args, k, got, want)
				}
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"a.txt", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"a.txt", "-op"}, "flag needs an argument: -op"},
		{[]string{"a.txt", "-n", "x"}, `invalid value "x" for flag -n`},
		{[]string{"a.txt", "---v"}, "bad flag syntax: ---v"},
	} {
		fs, _ := newSet()
		if _, err := Parse(fs, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.args, err, tc.want)
		}
	}
	fs, _ := newSet()
	if _, err := Parse(fs, []string{"a.txt", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Parse(a.txt -h) = %v, want flag.ErrHelp", err)
	}
}

// TestParseMatchesFlagsFirst is the differential test: any interleaving of flags (each with
// its value) among positional arguments parses to what the standard library's flag package
// gives for the flags first, then the positional arguments.
func TestParseMatchesFlagsFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	flags := [][]string{{"-op", "x"}, {"-op=y"}, {"-n", "7"}, {"--n=-2"}, {"-until", "3s"}, {"-v"}, {"-q=false"}, {"-v=true"}}
	for range 2000 {
		var groups [][]string
		for range rng.IntN(5) {
			groups = append(groups, flags[rng.IntN(len(flags))])
		}
		var positional []string
		for i := range rng.IntN(4) {
			positional = append(positional, []string{"a.txt", "-", "w.wl", "x"}[i])
		}
		var flat []string
		for _, g := range groups {
			flat = append(flat, g...)
		}
		ref, refGet := newSet()
		if err := ref.Parse(append(slices.Clone(flat), append([]string{"--"}, positional...)...)); err != nil {
			t.Fatal(err)
		}
		// Interleave: each positional argument goes between two random flag groups.
		var args []string
		p := 0
		for _, g := range groups {
			for p < len(positional) && rng.IntN(2) == 0 {
				args = append(args, positional[p])
				p++
			}
			args = append(args, g...)
		}
		args = append(args, positional[p:]...)
		fs, get := newSet()
		pos, err := Parse(fs, args)
		if err != nil {
			t.Fatalf("Parse(%q) = %v", args, err)
		}
		if !slices.Equal(pos, positional) {
			t.Fatalf("Parse(%q) positional = %q, want %q", args, pos, positional)
		}
		for k := range get {
			if get[k]() != refGet[k]() {
				t.Fatalf("Parse(%q): -%s = %q, flags first gives %q", args, k, get[k](), refGet[k]())
			}
		}
	}
}

// FuzzParse checks that no command line makes Parse panic, and that what it returns as
// positional is exactly what the flag package returns after "--".
func FuzzParse(f *testing.F) {
	f.Add("a.txt\x00-op\x00x\x00-v")
	f.Add("-\x00--\x00-q")
	f.Add("-n\x00")
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		fs, _ := newSet()
		pos, err := Parse(fs, args)
		if err != nil {
			return
		}
		if !slices.Equal(pos, fs.Args()) {
			t.Fatalf("Parse(%q) = %q, fs.Args() = %q", args, pos, fs.Args())
		}
		for _, p := range pos {
			if !slices.Contains(args, p) {
				t.Fatalf("Parse(%q) returned %q, not an argument", args, p)
			}
		}
	})
}
