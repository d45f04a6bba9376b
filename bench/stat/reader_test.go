package stat

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadDataset(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		o          ReadOptions
		want       []float64 // in input order
	}{
		{"one per line", "1\n2\n3\n", DefaultReadOptions(), []float64{1, 2, 3}},
		{"comments and blanks", "# t\n\n1.5\n 2 # two\n#3\n\t\n4e1\n", DefaultReadOptions(), []float64{1.5, 2, 40}},
		{"no final newline", "1\n2", DefaultReadOptions(), []float64{1, 2}},
		{"CRLF", "1\r\n2\r\n", DefaultReadOptions(), []float64{1, 2}},
		{"extra fields", "1 x y\n2 z\n", DefaultReadOptions(), []float64{1, 2}},
		{"column 2", "a 1\nb 2\nc\n# d 4\n", ReadOptions{Column: 2, Delimiters: " \t"}, []float64{1, 2}},
		{"comma", "r1,10,x\nr2,,20\n", ReadOptions{Column: 2, Delimiters: ","}, []float64{10, 20}},
		{"comment before the column", "a # 5\nb 6\n", ReadOptions{Column: 2, Delimiters: " "}, []float64{6}},
		{"hex and signs", "0x10\n-0x1p-1\n+.5\n5.\n", DefaultReadOptions(), []float64{16, -0.5, 0.5, 5}},
		{"NUL ends the text", "1\x00junk\n2\n", DefaultReadOptions(), []float64{1, 2}},
		{"leading space inside a comma field", "a, 7\n", ReadOptions{Column: 2, Delimiters: ","}, []float64{7}},
		{"empty", "", DefaultReadOptions(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadDataset(strings.NewReader(tc.text), "f", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Clone(d.values); !slices.Equal(got, tc.want) {
				t.Errorf("ReadDataset(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestReadDatasetErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		o          ReadOptions
		line       int
		field      string
		notFinite  bool
	}{
		{"unit", "1\n2\n12ms\n", DefaultReadOptions(), 3, "12ms", false},
		{"glued comment", "1\n16#x\n", DefaultReadOptions(), 2, "16#x", false},
		{"word", "\n\nabc\n", DefaultReadOptions(), 3, "abc", false},
		{"space in a comma field", "7,a \n5 ,x\n", ReadOptions{Column: 1, Delimiters: ","}, 2, "5 ", false},
		{"inf", "1\ninf\n", DefaultReadOptions(), 2, "inf", true},
		{"nan", "NaN\n", DefaultReadOptions(), 1, "NaN", true},
		{"overflow", "1e400\n", DefaultReadOptions(), 1, "1e400", true},
		{"exponent without digits", "1e\n", DefaultReadOptions(), 1, "1e", false},
		// A 9000-byte line is two of ministat's lines: the error is on line 3, not 2.
		{"long line", "1\n" + strings.Repeat("0", 9000) + "x\n", DefaultReadOptions(), 3, strings.Repeat("0", 9000-lineMax) + "x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDataset(strings.NewReader(tc.text), "data.txt", tc.o)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("ReadDataset(%q) error = %v, want an *InputError", tc.text, err)
			}
			if ie.File != "data.txt" || ie.Line != tc.line || ie.Text != tc.field || ie.NotFinite != tc.notFinite {
				t.Errorf("ReadDataset(%q) = %+v, want line %d field %q notFinite %t", tc.text, ie, tc.line, tc.field, tc.notFinite)
			}
			if want := fmt.Sprintf("stat: data.txt:%d: ", tc.line); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
		})
	}
}

func TestReadDatasetBadOptions(t *testing.T) {
	for _, o := range []ReadOptions{{Column: 0, Delimiters: " "}, {Column: 1, Delimiters: ""}} {
		if _, err := ReadDataset(strings.NewReader("1\n"), "f", o); err == nil {
			t.Errorf("ReadDataset with %+v: no error", o)
		}
	}
}

func TestReadDatasetReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ReadDataset(io.MultiReader(strings.NewReader("1\n2\n"), iotest.ErrReader(boom)), "f", DefaultReadOptions())
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "reading f") {
		t.Errorf("ReadDataset with a failing reader: %v", err)
	}
}

func TestReadDatasetOneByteReads(t *testing.T) {
	// The line splitting must not depend on how the reader cuts its data.
	text := "1\n# c\n" + strings.Repeat(" ", 8195) + "2\n3 4\n\n5"
	want, _, _ := naiveRead(text, 1, " \t")
	d, err := ReadDataset(iotest.OneByteReader(strings.NewReader(text)), "f", DefaultReadOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.values, want) {
		t.Errorf("ReadDataset(one byte at a time) = %v, want %v", d.values, want)
	}
}

// FuzzReadDataset compares ReadDataset with the naive model on any input: the same values, or
// an error at the same line; never a panic.
func FuzzReadDataset(f *testing.F) {
	f.Add([]byte("1\n2\n3\n"), uint8(1), " \t")
	f.Add([]byte("# c\n\n 1.5 # x\n2e3\r\n0x1p4\n"), uint8(1), " \t")
	f.Add([]byte("a,1\nb,2,3\n,4\n"), uint8(2), ",")
	f.Add([]byte("1\ninf\n"), uint8(1), " ")
	f.Add([]byte("1\x002\n12ms\n"), uint8(1), " \t")
	f.Add(append([]byte(strings.Repeat("7", 8200)), "\n1\n"...), uint8(1), " ")
	f.Fuzz(func(t *testing.T, data []byte, column uint8, delims string) {
		col := int(column%4) + 1
		if delims == "" || strings.IndexByte(delims, 0) >= 0 {
			delims = " \t"
		}
		d, err := ReadDataset(strings.NewReader(string(data)), "fuzz.txt", ReadOptions{Column: col, Delimiters: delims})
		want, badLine, notFinite := naiveRead(string(data), col, delims)
		if badLine != 0 {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line != badLine || ie.NotFinite != notFinite || ie.File != "fuzz.txt" {
				t.Fatalf("ReadDataset(%q, %d, %q) = %v, want an error at line %d (notFinite %t)", data, col, delims, err, badLine, notFinite)
			}
			return
		}
		if err != nil {
			t.Fatalf("ReadDataset(%q, %d, %q) error %v, want %v", data, col, delims, err, want)
		}
		if !slices.EqualFunc(d.values, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Fatalf("ReadDataset(%q, %d, %q) = %v, want %v", data, col, delims, d.values, want)
		}
	})
}
