// This file implements the Linux cpulist text form of a CPUSet.

package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns s in the Linux cpulist form that sysfs files such as
// /sys/devices/system/cpu/online use (bitmap_print_to_pagebuf with list=true):
// ascending, comma-separated, runs of two or more consecutive CPUs written as
// "lo-hi", for example "0-3,8,10-11". The empty set is "".
func (s CPUSet) String() string {
	var b strings.Builder
	c, ok := s.First()
	for ok {
		lo := c
		hi := c
		for {
			n, more := s.After(hi)
			if !more || n != hi+1 {
				c, ok = n, more
				break
			}
			hi = n
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(lo)))
		if hi != lo {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(int(hi)))
		}
	}
	return b.String()
}

// ParseCPUList parses the Linux cpulist form (bitmap_parselist): a
// comma-separated list of CPU ids "n" and inclusive ranges "lo-hi", where a
// range may end in ":used/group" to take the first used CPUs of every group
// of group CPUs ("0-7:2/4" is 0-1,4-5). Surrounding white space, such as the
// newline ending a sysfs file, is ignored, and the empty list is the empty
// set. Every id must be below [MaxCPUs]. ParseCPUList accepts every output
// of [CPUSet.String] and returns an error naming the offending offset for
// anything it does not accept.
func ParseCPUList(text string) (CPUSet, error) {
	var s CPUSet
	start := len(text) - len(strings.TrimLeft(text, " \t\n"))
	body := strings.TrimRight(text[start:], " \t\n")
	if body == "" {
		return s, nil
	}
	p := listParser{text: text, pos: start, end: start + len(body)}
	for {
		if err := p.item(&s); err != nil {
			return CPUSet{}, err
		}
		if p.pos == p.end {
			return s, nil
		}
		if text[p.pos] != ',' {
			return CPUSet{}, p.errorf("unexpected %q, want ',' or end of list", text[p.pos])
		}
		p.pos++
	}
}

// listParser reads one cpulist; pos is the offset of the next byte in text
// and end the offset just past the list.
type listParser struct {
	text     string
	pos, end int
}

func (p *listParser) errorf(format string, args ...any) error {
	return fmt.Errorf("topology: cpulist %q: offset %d: %s", p.text, p.pos, fmt.Sprintf(format, args...))
}

// number reads a decimal CPU id below MaxCPUs (or, when cpu is false, a
// group size between 1 and MaxCPUs).
func (p *listParser) number(what string) (int, error) {
	at := p.pos
	n := 0
	for p.pos < p.end && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
		if n <= MaxCPUs {
			n = n*10 + int(p.text[p.pos]-'0')
		}
		p.pos++
	}
	if p.pos == at {
		if p.pos == p.end {
			return 0, p.errorf("missing %s at end of list", what)
		}
		return 0, p.errorf("unexpected %q, want %s", p.text[p.pos], what)
	}
	if n >= MaxCPUs {
		p.pos = at
		return 0, p.errorf("%s %s out of range (max %d)", what, p.text[at:p.numberEnd(at)], MaxCPUs-1)
	}
	return n, nil
}

func (p *listParser) numberEnd(at int) int {
	for at < p.end && p.text[at] >= '0' && p.text[at] <= '9' {
		at++
	}
	return at
}

// item reads "n", "lo-hi" or "lo-hi:used/group" and adds it to s.
func (p *listParser) item(s *CPUSet) error {
	at := p.pos
	lo, err := p.number("cpu id")
	if err != nil {
		return err
	}
	hi := lo
	if p.pos < p.end && p.text[p.pos] == '-' {
		p.pos++
		if hi, err = p.number("cpu id"); err != nil {
			return err
		}
		if hi < lo {
			p.pos = at
			return p.errorf("range %d-%d runs backwards", lo, hi)
		}
	}
	used, group := 1, 1
	if p.pos < p.end && p.text[p.pos] == ':' {
		p.pos++
		if used, err = p.number("used size"); err != nil {
			return err
		}
		if p.pos >= p.end || p.text[p.pos] != '/' {
			return p.errorf("want '/' after used size")
		}
		p.pos++
		if group, err = p.number("group size"); err != nil {
			return err
		}
		if used == 0 || group == 0 || used > group {
			p.pos = at
			return p.errorf("bad group %d/%d: want 0 < used <= group", used, group)
		}
	}
	for c := lo; c <= hi; c++ {
		if (c-lo)%group < used {
			s.Add(CPU(c))
		}
	}
	return nil
}

// MarshalText returns s in cpulist form; it makes a CPUSet a JSON string.
func (s CPUSet) MarshalText() ([]byte, error) {
	return []byte(s.String()), nil
}

// UnmarshalText sets s to the set the cpulist text describes, as
// [ParseCPUList] does.
func (s *CPUSet) UnmarshalText(text []byte) error {
	t, err := ParseCPUList(string(text))
	if err != nil {
		return err
	}
	*s = t
	return nil
}
