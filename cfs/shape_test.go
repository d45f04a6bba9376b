package cfs_test

// This file checks the shape of the package's decisions (doc.go, "The shape of a decision") by
// reading its source: every exported function and method, so that a new decision is checked
// without being listed.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// shapeEnvs are the state types of the SMP decisions, which carry no tunables: a function
// taking one must take p *smp.Params last.
var shapeEnvs = []string{"*WakeEnv", "*LBEnv", "*MigrateEnv"}

// typeString renders a type expression of the package's source the way it is written, for the
// forms the checks compare (names, pointers, slices, qualified names).
func typeString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + typeString(t.X)
	case *ast.ArrayType:
		return "[]" + typeString(t.Elt)
	case *ast.SelectorExpr:
		return typeString(t.X) + "." + t.Sel.Name
	case *ast.Ellipsis:
		return "..." + typeString(t.Elt)
	}
	return "?"
}

// fieldTypes lists the type of every parameter or result of fl, one entry per name.
func fieldTypes(fl *ast.FieldList) []string {
	var ts []string
	if fl == nil {
		return ts
	}
	for _, f := range fl.List {
		n := max(len(f.Names), 1)
		for range n {
			ts = append(ts, typeString(f.Type))
		}
	}
	return ts
}

// shapeDecl is what checkShape knows of a package: its exported functions and methods, the
// String methods, and the fields of its struct types.
type shapeDecl struct {
	funcs    []*ast.FuncDecl
	stringer map[string]bool     // type name -> has String() string
	fields   map[string][]string // struct type name -> field types
}

// readShape collects the declarations of the parsed files.
func readShape(files []*ast.File) shapeDecl {
	d := shapeDecl{stringer: map[string]bool{}, fields: map[string][]string{}}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch x := decl.(type) {
			case *ast.FuncDecl:
				if x.Recv != nil && x.Name.Name == "String" && len(fieldTypes(x.Type.Params)) == 0 &&
					slices.Equal(fieldTypes(x.Type.Results), []string{"string"}) {
					d.stringer[strings.TrimPrefix(typeString(x.Recv.List[0].Type), "*")] = true
				}
				if x.Name.IsExported() {
					d.funcs = append(d.funcs, x)
				}
			case *ast.GenDecl:
				for _, spec := range x.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					if st, ok := ts.Type.(*ast.StructType); ok {
						d.fields[ts.Name.Name] = fieldTypes(st.Fields)
					}
				}
			}
		}
	}
	return d
}

// funcName is f's name as documentation writes it: F or T.M.
func funcName(f *ast.FuncDecl) string {
	if f.Recv == nil {
		return f.Name.Name
	}
	return strings.TrimPrefix(typeString(f.Recv.List[0].Type), "*") + "." + f.Name.Name
}

// checkShape returns the violations of the decision shape in d:
//   - a function (not a constructor New…) taking Params or smp.Params takes it last, as a pointer;
//   - a function taking a WakeEnv, LBEnv or MigrateEnv takes p *smp.Params last;
//   - every result whose type is named …Reason has a String method and follows the result it
//     explains, whose struct type (if it is one of the package's) holds no field of that reason
//     type: the reason has one source;
//   - a function (not a method) with a reason result has exactly two results.
func checkShape(d shapeDecl) []string {
	var bad []string
	for _, f := range d.funcs {
		name := funcName(f)
		params := fieldTypes(f.Type.Params)
		results := fieldTypes(f.Type.Results)
		last := ""
		if len(params) > 0 {
			last = params[len(params)-1]
		}
		if !strings.HasPrefix(f.Name.Name, "New") {
			for i, p := range params {
				if strings.TrimPrefix(p, "*") == "Params" || strings.TrimPrefix(p, "*") == "smp.Params" {
					if i != len(params)-1 || !strings.HasPrefix(p, "*") {
						bad = append(bad, name+": the tunables ("+p+") must be the last parameter, as a pointer")
					}
				}
			}
		}
		for _, p := range params {
			if slices.Contains(shapeEnvs, p) && last != "*smp.Params" {
				bad = append(bad, name+": takes "+p+" but not p *smp.Params last")
			}
		}
		nReasons := 0
		for i, r := range results {
			if !strings.HasSuffix(r, "Reason") {
				continue
			}
			nReasons++
			if !d.stringer[r] {
				bad = append(bad, name+": reason type "+r+" has no String method")
			}
			if i == 0 {
				bad = append(bad, name+": reason "+r+" is not preceded by the result it explains")
				continue
			}
			explained := strings.TrimPrefix(results[i-1], "*")
			if slices.Contains(d.fields[explained], r) {
				bad = append(bad, name+": result "+explained+" holds a "+r+" field beside the returned "+r)
			}
		}
		if f.Recv == nil && nReasons > 0 && len(results) != 2 {
			bad = append(bad, name+": a decision returns (result, reason), not "+strings.Join(results, ", "))
		}
	}
	return bad
}

// parseShape parses the package's non-test files in dir.
func parseShape(t *testing.T, dir string) shapeDecl {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return readShape(files)
}

// TestDecisionShape checks every exported function and method of the package against the
// decision shape, and that the decisions doc.go names as returning a reason do.
func TestDecisionShape(t *testing.T) {
	d := parseShape(t, ".")
	for _, v := range checkShape(d) {
		t.Error(v)
	}
	want := map[string][]string{
		"Pick":                {"*Entity", "PickReason"},
		"PickEligible":        {"int", "PickReason"},
		"CheckPreemptTick":    {"TickDecision", "TickReason"},
		"CheckPreemptWakeup":  {"WakeupDecision", "WakeupReason"},
		"SelectTaskRQ":        {"CPUSelection", "PlaceReason"},
		"SelectIdleSibling":   {"CPUSelection", "PlaceReason"},
		"FindBusiestGroup":    {"BusiestGroup", "BalanceReason"},
		"CanMigrateTask":      {"MigrateVerdict", "MigrateReason"},
		"RunQueue.Tick":       {"TickDecision", "TickReason"},
		"RunQueue.Wakeup":     {"WakeupDecision", "WakeupReason"},
		"RunQueue.Fork":       {"WakeupDecision", "WakeupReason"},
		"System.SelectTaskRQ": {"CPUSelection", "PlaceReason"},
		"System.Wakeup":       {"CPUSelection", "PlaceReason", "WakeupDecision", "WakeupReason"},
	}
	seen := map[string]bool{}
	for _, f := range d.funcs {
		name := funcName(f)
		if w, ok := want[name]; ok {
			seen[name] = true
			if got := fieldTypes(f.Type.Results); !slices.Equal(got, w) {
				t.Errorf("%s returns (%s), want (%s)", name, strings.Join(got, ", "), strings.Join(w, ", "))
			}
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: not found in the package", name)
		}
	}
}

// TestDecisionShapeCheck shows that checkShape finds each kind of violation, on a small source
// that breaks every rule once, and accepts the same source written in the shape.
func TestDecisionShapeCheck(t *testing.T) {
	const src = `package x
import "smp"
type Params struct{}
type LBEnv struct{}
type GoodReason uint8
func (GoodReason) String() string { return "" }
type MuteReason uint8
type Verdict struct { OK bool; Why GoodReason }
type Clean struct { OK bool }

func ByValue(q int, p Params) (Clean, GoodReason)             { return Clean{}, 0 }
func NotLast(p *Params, q int) (Clean, GoodReason)            { return Clean{}, 0 }
func EnvNoParams(env *LBEnv) bool                              { return false }
func Twice(env *LBEnv, p *smp.Params) (Verdict, GoodReason) { return Verdict{}, 0 }
func Mute(p *Params) (int, MuteReason)                         { return 0, 0 }
func First(p *Params) GoodReason                               { return 0 }
func Three(p *Params) (int, int, GoodReason)                   { return 0, 0, 0 }
func NewThing(p Params) int                                    { return 0 }
func Good(env *LBEnv, p *smp.Params) (Clean, GoodReason)    { return Clean{}, 0 }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := checkShape(readShape([]*ast.File{f}))
	want := []string{
		"ByValue: the tunables (Params) must be the last parameter, as a pointer",
		"NotLast: the tunables (*Params) must be the last parameter, as a pointer",
		"EnvNoParams: takes *LBEnv but not p *smp.Params last",
		"Twice: result Verdict holds a GoodReason field beside the returned GoodReason",
		"Mute: reason type MuteReason has no String method",
		"First: reason GoodReason is not preceded by the result it explains",
		"First: a decision returns (result, reason), not GoodReason",
		"Three: a decision returns (result, reason), not int, int, GoodReason",
	}
	if !slices.Equal(got, want) {
		t.Errorf("checkShape found\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}
