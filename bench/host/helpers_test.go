package host_test

import "fmt"

var fmtSprintf = fmt.Sprintf
