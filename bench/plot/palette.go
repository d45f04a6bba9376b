package plot

// This file implements Palette: the same colour for the same name in every picture of a report.

// colours are Tableau's 20 categorical colours, the dark and light tone of each hue in turn,
// reordered so that neighbours differ in hue.
var colours = []string{
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
	"#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
}

// A Palette assigns colours to names in the order the names are first asked for: the first
// name gets the first of 20 colours, the 21st name the first again. Share one Palette between
// the pictures of a report so that a thread has the same colour in all of them. The zero value
// is ready to use. A Palette is not safe for concurrent use.
type Palette struct {
	index map[string]int
	names []string
}

// Colour returns the colour of name as an SVG colour such as "#1f77b4", assigning the next
// one if name is new.
func (p *Palette) Colour(name string) string {
	if p.index == nil {
		p.index = make(map[string]int)
	}
	i, ok := p.index[name]
	if !ok {
		i = len(p.names)
		p.index[name] = i
		p.names = append(p.names, name)
	}
	return colours[i%len(colours)]
}

// Names returns the names p has coloured, in the order they were first asked for.
func (p *Palette) Names() []string { return append([]string(nil), p.names...) }
