// Command benchtable prints benchstat's tables of go test -bench output, byte for byte as
// golang.org/x/perf's benchstat prints them (a test runs both on the same files), with
// schedkit's bench/stat: x/perf's benchfmt, benchproc, benchmath and benchunit underneath,
// benchstat's layout on top. It takes benchstat's flags and arguments:
//
//	go run ./bench/stat/cmd/benchtable [-col /impl] [-row …] [-table …] [-ignore …] [-filter …] [-alpha 0.05] [-confidence 0.95] [label=]file...
//
// Without -col there is one column per file; -col /impl makes one column per value of the
// sub-benchmark key impl=… (a baseline implementation beside ours in the same binary). A file
// named "-" is standard input, and so is the input when no file is named; label=file names a
// column. Flags may also follow the files. scripts/benchrounds uses it for the interleaved
// rounds it records.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedkit/schedkit/bench/stat"
	"github.com/schedkit/schedkit/internal/cliflag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = "usage: benchtable [-col projection] [-row projection] [-table projection] [-ignore keys] [-filter query] [-alpha α] [-confidence level] [label=]file..."

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o stat.BenchOptions
	fs.StringVar(&o.Table, "table", ".config", "split results into tables by distinct values of `projection`")
	fs.StringVar(&o.Row, "row", ".fullname", "split results into rows by distinct values of `projection`")
	fs.StringVar(&o.Col, "col", ".file", "split results into columns by distinct values of `projection`")
	fs.StringVar(&o.Ignore, "ignore", "", "ignore variations in `keys`")
	fs.StringVar(&o.Filter, "filter", "*", "use only benchmarks matching benchfilter `query`")
	fs.Float64Var(&o.Alpha, "alpha", 0.05, "consider change significant if p < `α`")
	confidence := fs.Float64("confidence", 0.95, "confidence `level` for ranges, a fraction as in benchstat")
	files, err := cliflag.Parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, usage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "benchtable: %v\n%s\n", err, usage)
		return 2
	case !(*confidence > 0 && *confidence < 1):
		hint := ""
		if *confidence > 1 && *confidence < 100 {
			hint = fmt.Sprintf(" (a fraction, as benchstat's: -confidence %g)", *confidence/100)
		}
		fmt.Fprintf(stderr, "benchtable: -confidence %g: want a level strictly between 0 and 1%s\n", *confidence, hint)
		return 2
	case !(o.Alpha > 0 && o.Alpha <= 1):
		fmt.Fprintf(stderr, "benchtable: -alpha %g: want a level in (0, 1]\n", o.Alpha)
		return 2
	}
	o.Confidence = *confidence * 100
	if len(files) == 0 {
		files = []string{"-"}
	}
	var inputs []stat.BenchInput
	for _, arg := range files {
		label, name, labelled := strings.Cut(arg, "=")
		if !labelled {
			label, name = "", arg
		}
		if name == "-" {
			inputs = append(inputs, stat.BenchInput{Name: "-", Label: label, R: stdin})
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "benchtable: %v\n", err)
			return 1
		}
		defer f.Close()
		inputs = append(inputs, stat.BenchInput{Name: name, Label: label, R: f})
	}
	tables, err := stat.CompareBench(inputs, o)
	if err == nil {
		err = stat.WriteBenchTables(stdout, tables)
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchtable: %v\n", err)
		return 1
	}
	return 0
}
