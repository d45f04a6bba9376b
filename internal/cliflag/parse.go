package cliflag

// This file implements Parse: flags interleaved with positional arguments.

import (
	"flag"
	"strings"
)

// Parse parses the flags of fs from anywhere in args and returns the positional arguments in
// their order. Afterwards fs.Args() returns them too. It returns the flag package's error for
// an unknown flag, a missing or malformed value, or flag.ErrHelp for -h and -help, naming the
// flag as the flag package does.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		n := 1
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if f := fs.Lookup(name); f != nil && !hasValue && !isBool(f) && i+1 < len(args) {
			n = 2
		}
		if err := fs.Parse(args[i : i+n]); err != nil {
			return nil, err
		}
		i += n - 1
	}
	// Leave the positional arguments where fs.Args() finds them.
	if err := fs.Parse(append([]string{"--"}, pos...)); err != nil {
		return nil, err
	}
	return pos, nil
}

// isBool reports whether f is a boolean flag, which takes no separate value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
