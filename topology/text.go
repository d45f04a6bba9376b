// This file implements the compact text form of a topology: printing,
// parsing, and the Spec of an existing topology.

package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// textNames are the keywords of the text form; the SMT level is written
// "core" because each of its groups is one core.
var textNames = [NumLevels]string{"core", "cluster", "llc", "node", "package", "machine"}

// Spec returns the Spec that builds t: its groups from the top down with
// identical neighbours merged into one item with a count, CPU ids when they
// are not 0, 1, 2, … in depth-first order, and the distance table when it is
// not the default. New(t.Spec()) builds a topology equal to t.
func (t *Topology) Spec() Spec {
	var order []CPU
	s := Spec{Items: t.wrap(t.Root(), Machine, &order)}
	for i, c := range order {
		if c != CPU(i) {
			s.IDs = order
			break
		}
	}
	if len(t.byLevel[Node]) > 0 {
		n := t.nnodes
		def := true
		for i := range n {
			for j := range n {
				want := RemoteDistance
				if i == j {
					want = LocalDistance
				}
				if int(t.dist[i*n+j]) != want {
					def = false
				}
			}
		}
		if !def {
			s.Distance = make([][]int, n)
			for i := range n {
				s.Distance[i] = make([]int, n)
				for j := range n {
					s.Distance[i][j] = int(t.dist[i*n+j])
				}
			}
		}
	}
	return s
}

// wrap returns the items describing g below a group of level above: one
// count-1 item per level g stands for below above, outermost first, around
// the contents of g.
func (t *Topology) wrap(g *Group, above Level, order *[]CPU) []Item {
	items := t.contents(g, order)
	for l := range Level(NumLevels) {
		if l < above && g.levels.Has(l) {
			items = []Item{{Count: 1, Level: l, Items: items}}
		}
	}
	return items
}

// contents returns the items inside g: its children, merged where equal,
// or, for a leaf, its CPUs in runs of equal capacity.
func (t *Topology) contents(g *Group, order *[]CPU) []Item {
	var items []Item
	if len(g.children) == 0 {
		for c := range g.cpus.All() {
			*order = append(*order, c)
			capacity := int(t.cap[c])
			if capacity == CapacityScale {
				capacity = 0
			}
			if k := len(items) - 1; k >= 0 && items[k].Capacity == capacity {
				items[k].Count++
				continue
			}
			items = append(items, Item{CPU: true, Count: 1, Capacity: capacity})
		}
		return items
	}
	for _, ch := range g.children {
		it := t.wrap(ch, g.level, order)[0]
		if k := len(items) - 1; k >= 0 && sameShape(items[k], it) {
			items[k].Count++
			continue
		}
		items = append(items, it)
	}
	return items
}

// sameShape reports whether a and b differ at most in their top-level Count.
func sameShape(a, b Item) bool {
	if a.CPU != b.CPU || a.Capacity != b.Capacity || (!a.CPU && a.Level != b.Level) || len(a.Items) != len(b.Items) {
		return false
	}
	for i := range a.Items {
		if a.Items[i].Count != b.Items[i].Count || !sameShape(a.Items[i], b.Items[i]) {
			return false
		}
	}
	return true
}

// String returns the canonical text form of t, which [Parse] turns back
// into t; see the package documentation for the syntax.
func (t *Topology) String() string {
	return t.Spec().String()
}

// String returns s in the text form. It is canonical, the form [Parse]
// accepts, when s came from [Topology.Spec].
func (s Spec) String() string {
	var b strings.Builder
	writeList(&b, s.Items)
	if s.IDs != nil {
		b.WriteString(" cpus=")
		writeSeq(&b, s.IDs)
	}
	if s.Distance != nil {
		b.WriteString(" distance=")
		for i, row := range s.Distance {
			if i > 0 {
				b.WriteByte('/')
			}
			for j, v := range row {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(v))
			}
		}
	}
	if !s.Offline.IsEmpty() {
		b.WriteString(" offline=")
		b.WriteString(s.Offline.String())
	}
	return b.String()
}

func writeList(b *strings.Builder, items []Item) {
	for i, it := range items {
		if i > 0 {
			b.WriteString(" + ")
		}
		if it.CPU {
			b.WriteString("cpu:")
			b.WriteString(strconv.Itoa(it.Count))
			if it.Capacity != 0 && it.Capacity != CapacityScale {
				b.WriteByte('@')
				b.WriteString(strconv.Itoa(it.Capacity))
			}
			continue
		}
		if int(it.Level) < NumLevels {
			b.WriteString(textNames[it.Level])
		} else {
			b.WriteString(it.Level.String())
		}
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(it.Count))
		b.WriteByte(' ')
		if len(it.Items) == 1 {
			writeList(b, it.Items)
		} else {
			b.WriteByte('(')
			writeList(b, it.Items)
			b.WriteByte(')')
		}
	}
}

// writeSeq writes ids as comma-separated runs, a run of ascending
// consecutive ids as "lo-hi".
func writeSeq(b *strings.Builder, ids []CPU) {
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(ids[i])))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(int(ids[j])))
		}
		i = j + 1
	}
}

// Parse builds the topology a text form describes, such as
//
//	package:2 node:1 llc:1 core:4 cpu:2 distance=10,21/21,10
//
// It accepts exactly the canonical form [Topology.String] prints, so every
// text it accepts prints back to itself. A text that describes a valid
// machine in another way (a different spacing, a count of 1 that adds no
// group, runs not merged) is refused with an error that shows the canonical
// text; every other mistake is refused with an error naming the column
// (1-based, in bytes) and what was expected there, or, for the checks of
// [New], the column where the item or field starts ("cpus=", "distance=",
// "offline=") and its path in the Spec, as in
//
//	topology: parse "cpu:0": column 1: items[0]: count 0, want at least 1
func Parse(text string) (*Topology, error) {
	s, p, err := parseSpec(text)
	if err != nil {
		return nil, err
	}
	t, err := newSpec(s, p.where)
	if err != nil {
		return nil, fmt.Errorf("topology: parse %q: %s", text, strings.TrimPrefix(err.Error(), "topology: "))
	}
	if got := t.String(); got != text {
		i := 0
		for i < len(got) && i < len(text) && got[i] == text[i] {
			i++
		}
		return nil, fmt.Errorf("topology: parse %q: column %d: not in canonical form; this machine is written %q", text, i+1, got)
	}
	return t, nil
}

// ParseSpec reads a text form into a Spec without building or checking the
// machine, and without requiring the canonical form: it accepts what
// [Spec.String] prints, including an " offline=<cpulist>" suffix. Syntax
// errors name the column.
func ParseSpec(text string) (Spec, error) {
	s, _, err := parseSpec(text)
	return s, err
}

// parseSpec is ParseSpec, also returning the parser, which knows where each
// item and field of the Spec was written.
func parseSpec(text string) (Spec, *textParser, error) {
	p := &textParser{text: text, at: make(map[string]int)}
	s, err := p.spec()
	return s, p, err
}

// spec reads a whole text form.
func (p *textParser) spec() (Spec, error) {
	text := p.text
	var s Spec
	var err error
	if s.Items, err = p.list(Machine, "items"); err != nil {
		return Spec{}, err
	}
	if p.take(" cpus=") {
		p.at["ids"] = p.pos
		if s.IDs, err = p.seq(); err != nil {
			return Spec{}, err
		}
	}
	if p.take(" distance=") {
		p.at["distance"] = p.pos
		if s.Distance, err = p.matrix(); err != nil {
			return Spec{}, err
		}
	}
	if p.take(" offline=") {
		at := p.pos
		p.at["offline"] = at
		end := strings.IndexByte(text[at:], ' ')
		if end < 0 {
			end = len(text) - at
		}
		if s.Offline, err = ParseCPUList(text[at : at+end]); err != nil {
			return Spec{}, p.errorf("bad offline list: %v", err)
		}
		p.pos += end
	}
	if p.pos != len(text) {
		return Spec{}, p.errorf("unexpected %q, want \" + \", \" cpus=\", \" distance=\", \" offline=\" or the end", p.rest())
	}
	return s, nil
}

// textParser reads a text form; pos is the offset of the next byte.
type textParser struct {
	text string
	pos  int
	at   map[string]int // offset of each item path and field read
}

// where returns "column N: place" for a place in the Spec read, such as
// "items[0].items[1]" or "ids[3]", for the errors of New. A place not
// recorded takes the column of the nearest enclosing one that is; the
// place "" is the whole text.
func (p *textParser) where(place string) string {
	if place == "" {
		return "column 1"
	}
	for q := place; ; {
		if off, ok := p.at[q]; ok {
			return "column " + strconv.Itoa(off+1) + ": " + place
		}
		i := strings.LastIndexAny(q, ".[")
		if i <= 0 {
			return "column 1: " + place
		}
		q = q[:i]
	}
}

func (p *textParser) errorf(format string, args ...any) error {
	return fmt.Errorf("topology: parse %q: column %d: %s", p.text, p.pos+1, fmt.Sprintf(format, args...))
}

// rest returns a short quote of the unread text.
func (p *textParser) rest() string {
	r := p.text[p.pos:]
	if len(r) > 12 {
		r = r[:12] + "…"
	}
	return r
}

func (p *textParser) take(s string) bool {
	if strings.HasPrefix(p.text[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

// number reads a decimal number of at most 7 digits.
func (p *textParser) number(what string) (int, error) {
	at := p.pos
	for p.pos < len(p.text) && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == at {
		if at == len(p.text) {
			return 0, p.errorf("want %s, found the end", what)
		}
		return 0, p.errorf("want %s, found %q", what, p.rest())
	}
	if p.pos-at > 7 {
		p.pos = at
		return 0, p.errorf("%s %s is too large", what, p.text[at:at+8]+"…")
	}
	n, _ := strconv.Atoi(p.text[at:p.pos])
	return n, nil
}

// list reads items separated by " + " inside a group of level parent; path
// names them, as in "items" or "items[0].items".
func (p *textParser) list(parent Level, path string) ([]Item, error) {
	var items []Item
	for {
		it, err := p.item(parent, path+"["+strconv.Itoa(len(items))+"]")
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if !p.take(" + ") {
			return items, nil
		}
	}
}

// item reads "cpu:N", "cpu:N@C" or "<level>:N <body>" as the item at path.
func (p *textParser) item(parent Level, path string) (Item, error) {
	at := p.pos
	p.at[path] = at
	if p.take("cpu:") {
		n, err := p.number("a CPU count")
		if err != nil {
			return Item{}, err
		}
		it := Item{CPU: true, Count: n}
		if p.take("@") {
			if it.Capacity, err = p.number("a capacity"); err != nil {
				return Item{}, err
			}
		}
		return it, nil
	}
	level := Level(NumLevels)
	for l, name := range textNames[:Machine] {
		if p.take(name + ":") {
			level = Level(l)
			break
		}
	}
	if level == Level(NumLevels) {
		return Item{}, p.errorf("want cpu:, core:, cluster:, llc:, node: or package:, found %q", p.rest())
	}
	if level >= parent {
		p.pos = at
		return Item{}, p.errorf("%s group inside a %s group, want a lower level", textNames[level], textNames[parent])
	}
	n, err := p.number("a group count")
	if err != nil {
		return Item{}, err
	}
	if !p.take(" ") {
		return Item{}, p.errorf("want a space and the contents of the %s group", textNames[level])
	}
	it := Item{Level: level, Count: n}
	if p.take("(") {
		if it.Items, err = p.list(level, path+".items"); err != nil {
			return Item{}, err
		}
		if !p.take(")") {
			return Item{}, p.errorf("want \" + \" or \")\", found %q", p.rest())
		}
		return it, nil
	}
	sub, err := p.item(level, path+".items[0]")
	if err != nil {
		return Item{}, err
	}
	it.Items = []Item{sub}
	return it, nil
}

// seq reads comma-separated ids and ascending runs "lo-hi".
func (p *textParser) seq() ([]CPU, error) {
	var ids []CPU
	for {
		run := p.pos
		lo, err := p.number("a CPU id")
		if err != nil {
			return nil, err
		}
		hi := lo
		if p.take("-") {
			at := p.pos
			if hi, err = p.number("a CPU id"); err != nil {
				return nil, err
			}
			if hi < lo {
				p.pos = at
				return nil, p.errorf("run %d-%d runs backwards", lo, hi)
			}
		}
		if hi >= MaxCPUs {
			return nil, p.errorf("CPU id %d out of range (max %d)", hi, MaxCPUs-1)
		}
		if len(ids)+hi-lo+1 > MaxCPUs {
			return nil, p.errorf("more than %d CPU ids", MaxCPUs)
		}
		for c := lo; c <= hi; c++ {
			p.at["ids["+strconv.Itoa(len(ids))+"]"] = run
			ids = append(ids, CPU(c))
		}
		if !p.take(",") {
			return ids, nil
		}
	}
}

// matrix reads rows separated by "/" of comma-separated distances.
func (p *textParser) matrix() ([][]int, error) {
	var m [][]int
	for {
		var row []int
		for {
			v, err := p.number("a distance")
			if err != nil {
				return nil, err
			}
			row = append(row, v)
			if len(row) > MaxCPUs {
				return nil, p.errorf("distance row longer than %d", MaxCPUs)
			}
			if !p.take(",") {
				break
			}
		}
		m = append(m, row)
		if len(m) > MaxCPUs {
			return nil, p.errorf("more than %d distance rows", MaxCPUs)
		}
		if !p.take("/") {
			return m, nil
		}
	}
}
