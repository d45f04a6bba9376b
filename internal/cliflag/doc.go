// Package cliflag parses a command line whose flags may come before, between or after its
// positional arguments, as GNU getopt permutes them and as users of ministat, perf and
// benchstat type them: "schedbench run w.wl -until 2s" is "schedbench run -until 2s w.wl".
//
// It is a thin layer over the standard library's flag package, which stops at the first
// positional argument. [Parse] feeds the flag package one flag (and its value) at a time,
// keeping every other argument, in order, as a positional one. "--" ends the flags: every
// argument after it is positional, even one that starts with "-". A lone "-" is positional
// (standard input, by convention). A flag's value is the next argument unless the flag is
// boolean or written "-name=value", as the flag package reads it.
//
// The schedkit commands (bench/cmd/schedbench and bench/stat/cmd/benchtable) share it;
// bench/cmd/ministat keeps its own getopt, which follows Debian's ministat byte for byte.
package cliflag
