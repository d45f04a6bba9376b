// Command benchtable prints benchstat-style tables of go test -bench output with schedkit's
// bench/stat (golang.org/x/perf's benchfmt, benchproc and benchmath underneath): the median
// of each benchmark with its confidence interval, and every column after the first compared
// with the first by a Mann-Whitney U test.
//
//	go run ./bench/stat/cmd/benchtable [-col /impl] [-confidence 95] file...
//
// Without -col there is one column per file; -col /impl makes one column per value of the
// sub-benchmark key impl=… (a baseline implementation beside ours in the same binary). A file
// named "-" is standard input. scripts/benchrounds uses it for the interleaved rounds it
// records.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/schedkit/schedkit/bench/stat"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	col := fs.String("col", "", "benchproc projection for the columns (default: one column per file)")
	confidence := fs.Float64("confidence", 95, "confidence level, in percent, of the intervals and tests")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: benchtable [-col projection] [-confidence percent] file...")
		return 2
	}
	var inputs []stat.BenchInput
	for _, name := range fs.Args() {
		if name == "-" {
			inputs = append(inputs, stat.BenchInput{Name: "<stdin>", R: stdin})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "benchtable: %v\n", err)
			return 1
		}
		defer f.Close()
		inputs = append(inputs, stat.BenchInput{Name: name, R: f})
	}
	tables, err := stat.CompareBench(inputs, *col, *confidence)
	if err != nil {
		fmt.Fprintf(stderr, "benchtable: %v\n", err)
		return 1
	}
	for i, t := range tables {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := t.Write(stdout); err != nil {
			fmt.Fprintf(stderr, "benchtable: %v\n", err)
			return 1
		}
	}
	return 0
}
