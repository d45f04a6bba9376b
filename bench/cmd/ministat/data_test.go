package main

// This file implements the data sets of the golden tests: generated from seeded PCG streams by
// writeData (go test -run TestGolden -update), committed under testdata/data.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// dataFiles returns the contents of every golden-test data file by name.
func dataFiles() map[string]string {
	files := map[string]string{}
	r := rand.New(rand.NewPCG(12, 2026))
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i))
			b.WriteByte('\n')
		}
		return b.String()
	}
	normal := func(mean, sd float64, digits int) func(int) string {
		return func(int) string { return fmt.Sprintf("%.*f", digits, mean+sd*r.NormFloat64()) }
	}
	// Seven random normal sets of different sizes, means and spreads.
	for i := range 7 {
		n := []int{9, 9, 12, 5, 30, 7, 50}[i]
		files[fmt.Sprintf("normal%d.txt", i+1)] = lines(n, normal(435+0.7*float64(i), 0.3+0.2*float64(i), 2))
	}
	files["big.txt"] = lines(1000, normal(100, 15, 3))
	files["ties.txt"] = lines(40, func(int) string { return fmt.Sprint(109 + r.IntN(3)) })
	files["ties2.txt"] = lines(40, func(int) string { return fmt.Sprint(104 + r.IntN(4)) })
	files["same.txt"] = lines(8, func(int) string { return "42" })
	files["same2.txt"] = lines(8, func(int) string { return "42" })
	files["equal01.txt"] = lines(5, func(int) string { return "0.001" })
	files["equal02.txt"] = lines(5, func(int) string { return "0.002" })
	files["one.txt"] = "7\n"
	files["two.txt"] = "7\n8\n"
	files["huge.txt"] = lines(10, func(int) string { return fmt.Sprintf("%.6e", 1e150*(1+0.1*r.NormFloat64())) })
	files["huge2.txt"] = lines(10, func(int) string { return fmt.Sprintf("%.6e", 1.05e150*(1+0.1*r.NormFloat64())) })
	files["tiny.txt"] = lines(10, func(int) string { return fmt.Sprintf("%.6e", 1e-150*(1+0.1*r.NormFloat64())) })
	files["tiny2.txt"] = lines(10, func(int) string { return fmt.Sprintf("%.6e", 0.9e-150*(1+0.1*r.NormFloat64())) })
	files["negative.txt"] = lines(15, normal(-20, 4, 3))
	files["negative2.txt"] = lines(15, normal(-17, 4, 3))
	files["zeros.txt"] = "0\n-0\n1\n-1\n0\n-0\n"
	files["negzero.txt"] = "-0\n0\n-0\n0\n2\n"
	files["exp.txt"] = lines(60, func(int) string { return fmt.Sprintf("%.4f", r.ExpFloat64()*10) })
	files["comments.txt"] = "# timings in seconds\n\n12.5\n  13.0  # a comment\n#12\n\n\t14.25\n 15 extra fields\n16#notacomment\n"
	files["commentsok.txt"] = "# timings in seconds\n\n12.5\n  13.0  # a comment\n#12\n\n\t14.25\n 15 extra fields\n"
	files["invalid.txt"] = "1\n2\n3\n12ms\n5\n"
	files["crlf.txt"] = "1\r\n2\r\n3\r\n"
	files["hex.txt"] = "0x10\n0x1.8p3\n1e1\n.5\n5.\n+3\n -2\n"
	files["csv.txt"] = lines(12, func(i int) string {
		return fmt.Sprintf("run%d,%.3f,%.1f", i, 50+5*r.NormFloat64(), 200+20*r.NormFloat64())
	})
	files["csv2.txt"] = lines(12, func(i int) string {
		return fmt.Sprintf("run%d,%.3f,%.1f", i, 54+5*r.NormFloat64(), 180+20*r.NormFloat64())
	})
	files["longline.txt"] = "1\n2\n" + strings.Repeat(" ", 8190) + "3\n4\n5\n"
	files["nul.txt"] = "1\n2\x00junk\n3\n4\n"
	files["noeol.txt"] = "1\n2\n3"
	files["empty.txt"] = ""
	files["spread.txt"] = lines(25, func(int) string { return fmt.Sprintf("%.2f", 100*math.Exp(r.NormFloat64())) })
	return files
}

// writeData writes dataFiles into dir.
func writeData(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, text := range dataFiles() {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
