package lesson

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain lets the test binary act as a lesson: with LESSON_TEST_RUN set it calls Main with a
// run function that writes that text and fails if the text is "fail".
func TestMain(m *testing.M) {
	if text, ok := os.LookupEnv("LESSON_TEST_RUN"); ok {
		Main("demo", func(w io.Writer) error {
			if text == "fail" {
				return errors.New("no such preset")
			}
			_, err := io.WriteString(w, text)
			return err
		})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// lessonProcess runs the test binary as a lesson with the given text and returns its standard
// output, its standard error and its exit status.
func lessonProcess(t *testing.T, text string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LESSON_TEST_RUN="+text)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

func TestMainWritesToStdout(t *testing.T) {
	out, errOut, status := lessonProcess(t, "the lesson\n")
	if out != "the lesson\n" || errOut != "" || status != 0 {
		t.Errorf("got stdout %q, stderr %q, status %d; want the lesson on stdout, nothing on stderr, status 0", out, errOut, status)
	}
}

func TestMainReportsError(t *testing.T) {
	out, errOut, status := lessonProcess(t, "fail")
	if out != "" || errOut != "demo: no such preset\n" || status != 1 {
		t.Errorf("got stdout %q, stderr %q, status %d; want stderr \"demo: no such preset\\n\" and status 1", out, errOut, status)
	}
}
