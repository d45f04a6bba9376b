// Command ministat is a drop-in replacement for FreeBSD's ministat, as Debian packages it
// (ministat 20150715): the same flags, the same messages and exit status, the same bytes on
// standard output, computed by schedkit's bench/stat package.
//
//	go run ./bench/cmd/ministat [-C column] [-c confidence] [-d delimiter(s)] [-Anqs] [-w width] [file [file ...]]
//
// With no file it reads standard input, as does a file named "-". Options may follow file
// names (GNU getopt permutes them, unless POSIXLY_CORRECT is set); "--" ends them.
//
// It differs from Debian's program only where that one's behaviour is undefined or unhelpful:
// a NaN or infinite value (including a decimal number too large for a float64) is refused as
// invalid data with ministat's own message, where ministat would accept it and draw a
// meaningless plot; -w 1, with which ministat crashes, is refused with a message and exit
// status 2; and -w 0, with which ministat writes into zero-length buffers, prints the empty
// frame ministat prints when it survives (it crashes when a later data set stacks higher in
// the plot than the earlier ones, as glibc's realloc(p, 0) returns NULL). Values so large
// that ministat's sums of squares overflow (beyond about 1.3e154), for which it prints a
// Stddev of -nan and no difference, get finite figures: the same arithmetic in a unit a power
// of two larger (see bench/stat's Dataset.Summary); a spread too wide for any plot to scale
// (about 1.8e308) is refused with a message and status 1.
//
// It also takes -q, which FreeBSD's later ministat has and Debian's refuses as an unknown
// option: the legend of data set names and the table's header line are left out (main in
// FreeBSD's usr.bin/ministat/ministat.c since 2020 skips exactly those two printf loops under
// flag_q), so the report is Debian's without them. The usage message stays Debian's.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedkit/schedkit/bench/stat"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv, isTerminal(os.Stdout)))
}

// usageText is ministat's usage message after its first line (usage in ministat.c).
const usageText = `Usage: ministat [-C column] [-c confidence] [-d delimiter(s)] [-Ans] [-w width] [file [file ...]]
	confidence = {80%, 90%, 95%, 98%, 99%, 99.5%}
	-A : print statistics only. suppress the graph.
	-C : column number to extract (starts and defaults to 1)
	-d : delimiter(s) string, default to " \t"
	-n : print summary statistics only, no graph/test
	-s : print avg/median/stddev bars on separate lines
	-w : width of graph/test output (default 74 or terminal width)
`

// exitError carries an exit status and what to write on standard error before exiting.
type exitError struct {
	status int
	msg    string
}

func (e *exitError) Error() string { return e.msg }

func usage(whine string) error {
	return &exitError{2, whine + "\n" + usageText}
}

// tty describes standard output when it is a terminal: its width in columns.
type tty struct {
	ok   bool
	cols int
}

// run is ministat's main with its environment as arguments, and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, term tty) int {
	err := ministat(args, stdin, stdout, getenv, term)
	var e *exitError
	if errors.As(err, &e) {
		io.WriteString(stderr, e.msg)
		return e.status
	}
	if err != nil {
		fmt.Fprintf(stderr, "ministat: %v\n", err)
		return 1
	}
	return 0
}

func ministat(args []string, stdin io.Reader, stdout io.Writer, getenv func(string) string, term tty) error {
	o := stat.DefaultOptions()
	ro := stat.DefaultReadOptions()
	if term.ok {
		if p := getenv("COLUMNS"); p != "" {
			o.Width, _ = strtol(p)
		} else if term.cols > 0 {
			o.Width = term.cols - 2
		}
	}
	confSet := false
	files, err := getopt(args, "AC:c:d:nqsw:", getenv("POSIXLY_CORRECT") != "", func(c byte, arg string) error {
		return option(c, arg, &o, &ro, &confSet)
	})
	if err != nil {
		return err
	}
	if len(files) == 0 {
		files = []string{"-"}
	} else if len(files) > stat.MaxSamples {
		return usage("Too many datasets.")
	}
	samples := make([]stat.Sample, 0, len(files))
	for _, name := range files {
		s, err := readSet(name, stdin, ro)
		if err != nil {
			return err
		}
		samples = append(samples, s)
	}
	if o.Width == 1 && !o.NoPlot && !o.SummaryOnly {
		return &exitError{2, "ministat: a plot 1 column wide has an infinite scale (Debian's ministat crashes); use -w 0 or -w 2 or more\n"}
	}
	if o.Width == 1 {
		o.Width = 2 // not drawn
	}
	return stat.Ministat(stdout, samples, o)
}

// option applies option c with its argument arg to o and ro, with ministat's messages; confSet
// says a -c has been given already.
func option(c byte, arg string, o *stat.Options, ro *stat.ReadOptions, confSet *bool) error {
	switch c {
	case 'A':
		o.NoPlot = true
	case 'C':
		n, ok := strtol(arg)
		if !ok {
			return usage("Invalid column number.")
		}
		if n <= 0 {
			return usage("Column number should be positive.")
		}
		ro.Column = n
	case 'c':
		a, ok := parseWhole(arg)
		if !ok {
			return usage("Not a floating point number")
		}
		// A level the table lacks keeps an earlier -c's level, as in ministat.
		found := false
		for _, l := range stat.Levels {
			if a == l {
				o.Confidence, found = l, true
			}
		}
		if !found && !*confSet {
			return usage("No support for confidence level")
		}
		*confSet = true
	case 'd':
		if arg == "" {
			return usage("Can't use empty delimiter string")
		}
		ro.Delimiters = arg
	case 'n':
		o.SummaryOnly = true
	case 'q':
		o.Quiet = true
	case 's':
		o.Separate = true
	case 'w':
		n, ok := strtol(arg)
		if !ok {
			return usage("Invalid width, not a number.")
		}
		if n < 0 {
			return usage("Unable to move beyond left margin.")
		}
		o.Width = n
	}
	return nil
}

// readSet reads one data set as ministat's ReadSet does, with its messages.
func readSet(name string, stdin io.Reader, ro stat.ReadOptions) (stat.Sample, error) {
	var r io.Reader = stdin
	if name == "-" {
		name = "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return stat.Sample{}, &exitError{1, fmt.Sprintf("ministat: Cannot open %s: %s\n", name, strerror(err))}
		}
		defer f.Close()
		r = f
	}
	d, err := stat.ReadDataset(eofOnError{r}, name, ro)
	var ie *stat.InputError
	if errors.As(err, &ie) {
		return stat.Sample{}, &exitError{2, fmt.Sprintf("ministat: Invalid data on line %d in %s\n", ie.Line, name)}
	}
	if err != nil {
		return stat.Sample{}, err
	}
	if d.Len() < stat.MinPoints {
		return stat.Sample{}, &exitError{2, fmt.Sprintf("Dataset %s must contain at least %d data points\n", name, stat.MinPoints)}
	}
	return stat.Sample{Name: name, Data: d}, nil
}

// eofOnError turns a read error into the end of the input, as ministat's fgets loop does (a
// directory opens, and reading it fails with EISDIR: ministat sees an empty data set).
type eofOnError struct{ r io.Reader }

func (e eofOnError) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		err = io.EOF
	}
	return n, err
}

// strerror returns glibc's message for the error of a failed open: Go's text for the errno,
// which is glibc's with a lower-case first letter.
func strerror(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
