package stat

import (
	"strings"
	"testing"
)

func TestTextGrid(t *testing.T) {
	// Column 0 is as wide as "ccc"; column 1 has a one-space margin and is as wide as "bb"
	// plus it; right alignment pads on the left.
	var g textGrid
	g.row()
	g.cell("a", alignLeft, nil)
	g.cell("bb", alignRight, nil)
	g.row()
	g.cell("ccc", alignLeft, nil)
	g.cell("d", alignRight, nil)
	var b strings.Builder
	if err := g.write(&b); err != nil {
		t.Fatal(err)
	}
	if want := "a   bb\nccc  d\n"; b.String() != want {
		t.Errorf("simple grid =\n%q\nwant\n%q", b.String(), want)
	}

	// A spanning cell wider than its columns widens the columns that are not shrink
	// columns, widest first, each by its share rounded up; a centred value sits left of the
	// middle; empty cells print nothing, so no line ends in blanks.
	g = textGrid{}
	g.row()
	g.span(3, "0123456789", alignCenter, margin("|"))
	g.row()
	g.cell("x", alignLeft, nil)
	g.cell("yy", alignLeft, nil)
	g.cell("", alignLeft, nil)
	g.setShrink(1)
	b.Reset()
	if err := g.write(&b); err != nil {
		t.Fatal(err)
	}
	// Column 0: margin "|" (1) + "x" = 2; column 1 (shrink): " yy" = 3; column 2: 0. The
	// span needs 11: the shrink column keeps 3, leaving 8 for columns 0 and 2 (2 and 0 wide):
	// column 0 takes ⌈8/2⌉ = 4, column 2 the remaining 4. Column 0's margin is 1 wide in every
	// row, so "x" starts at 1 and "yy" after its own margin at 5.
	want := "|0123456789\n x   yy\n"
	if b.String() != want {
		t.Errorf("spanning grid =\n%q\nwant\n%q", b.String(), want)
	}
}

func TestSuperscript(t *testing.T) {
	for i, want := range map[int]string{0: "⁰", 1: "¹", 9: "⁹", 10: "¹⁰", 123: "¹²³"} {
		if got := superscript(i); got != want {
			t.Errorf("superscript(%d) = %s, want %s", i, got, want)
		}
	}
}
