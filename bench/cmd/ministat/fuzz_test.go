package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/stat"
)

// FuzzAgainstDebian feeds the same data files and flags to our ministat and to Debian's, and
// compares standard output, standard error and exit status. Inputs where ministat's behaviour
// is undefined are skipped: NaN and infinite values (we refuse them), values so large that its
// sums overflow (its plot then indexes with a NaN), -w 1 (it crashes) and -w 0 (it writes
// into zero-length buffers, and crashes when a later data set stacks higher than the earlier
// ones: glibc's realloc(p, 0) returns NULL). Without Debian's
// ministat the target only checks that ours never panics.
func FuzzAgainstDebian(f *testing.F) {
	f.Add([]byte("1\n2\n3\n"), []byte("4\n5\n7\n"), uint8(0), uint8(74))
	f.Add([]byte("# c\n\n1.5 x\n2e1\n0x10\n"), []byte("1\n1\n1\n"), uint8(1), uint8(20))
	f.Add([]byte("1,2\n3,4\n5,6\n"), []byte("7,8\n9,1\n2,3\n"), uint8(6), uint8(40))
	f.Add([]byte("1\n2\n12ms\n"), []byte("1\n2\n3\n"), uint8(2), uint8(0))
	f.Add([]byte("-0\n0\n-0\n"), []byte("0.001\n0.001\n0.001\n0.001\n0.001\n"), uint8(3), uint8(2))
	bin, haveDebian := lookDebian()
	f.Fuzz(func(t *testing.T, a, b []byte, flags, width uint8) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a"), a, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "b"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"-w", strconv.Itoa(int(width))}
		if flags&1 != 0 {
			args = append(args, "-s")
		}
		if flags&2 != 0 {
			args = append(args, "-n")
		}
		if flags&4 != 0 {
			args = append(args, "-C", "2", "-d", ",")
		}
		if flags&8 != 0 {
			args = append(args, "-A")
		}
		if flags&16 != 0 {
			args = append(args, "-c", "99.5")
		}
		args = append(args, "a", "b")
		column := 1
		delims := " \t"
		if flags&4 != 0 {
			column, delims = 2, ","
		}
		if width <= 1 || undefined(a, column, delims) || undefined(b, column, delims) {
			t.Skip("ministat's behaviour is undefined on this input")
		}
		t.Chdir(dir)
		ours := runOurs(args, "")
		if !haveDebian {
			return
		}
		if want := runDebian(t, bin, dir, args, ""); !bytes.Equal(ours, want) {
			t.Errorf("ministat %s on %q and %q:\n%s", strings.Join(args, " "), a, b, lineDiff(ours, want))
		}
	})
}

// undefined reports whether ministat's result on data is undefined: a NaN or infinite value,
// or one so large that its running sum of squares overflows.
func undefined(data []byte, column int, delims string) bool {
	d, err := stat.ReadDataset(bytes.NewReader(data), "x", stat.ReadOptions{Column: column, Delimiters: delims})
	if err != nil {
		if ie, ok := err.(*stat.InputError); ok {
			return ie.NotFinite
		}
		return false
	}
	for _, v := range d.Values() {
		if math.Abs(v) > 1e100 {
			return true
		}
	}
	return false
}

// lookDebian returns the path of Debian's ministat, if it is installed.
func lookDebian() (string, bool) {
	path, err := exec.LookPath("ministat")
	return path, err == nil
}
