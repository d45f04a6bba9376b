package scenario_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden tables")

// The tables of a sample of scenarios at their small size are pinned, so that a change of any
// number shows, and the same bytes come out on every architecture (CI runs this under
// GOARCH=386 too).
func TestGolden(t *testing.T) {
	for _, name := range []string{"seed000-pipeline", "seed001-kargl", "seed003-posix"} {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.Lookup(name)
			require.NoError(t, err)
			rep, err := scenario.Run(s, scenario.Options{Small: true, Reps: 2})
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, rep.WriteTable(&b))
			file := filepath.Join("testdata", name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(file, b.Bytes(), 0o644))
			}
			want, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, string(want), b.String())
		})
	}
}
