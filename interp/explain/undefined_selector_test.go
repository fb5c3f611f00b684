package explain

import (
	"strings"
	"testing"
)

// TestUndefinedSelector: each form of the interpreter's message for a missing field, method or
// package member becomes Go's, at the selected name's column, naming the value and its type
// when the session knows it, with the name that differs in case or by at most two edits; a
// message whose name the cell does not select stays as it is, and another explainer's hint
// after it is kept.
func TestUndefinedSelector(t *testing.T) {
	vars := map[string]struct {
		typ     string
		members []string
	}{
		"res":  {"sbi.TrainResult", []string{"TrainLoss", "ValLoss", "BestEpoch", "String"}},
		"pres": {"*sbi.TrainResult", []string{"TrainLoss", "ValLoss", "BestEpoch", "String"}},
		"tv":   {"T", []string{"Alpha", "Beta"}},
		"d":    {"dist.Distribution", []string{"LogProb", "Sample", "Dim"}},
		"q":    {"", nil},
	}
	env := Env{Cell: 3, Where: cellWhere,
		Package: func(name string) bool { return name == "sbi" || name == "slices" },
		Symbols: func(name string) []string {
			if name == "sbi" {
				return []string{"NewNPE", "Simulate"}
			}
			return nil
		},
		VarType: func(name string) (string, []string, bool) {
			v, ok := vars[name]
			return v.typ, v.members, ok
		},
	}
	for _, c := range []struct {
		name, cell, msg, want string
	}{
		{"compiled type", "res.Foo", "_.go:1300001:1: undefined method: Foo",
			"cell [3] line 1:5: res.Foo undefined (type sbi.TrainResult has no field or method Foo)"},
		{"case only", "x := res.trainLoss", "_.go:1300001:6: undefined method: trainLoss",
			"cell [3] line 1:10: res.trainLoss undefined (type sbi.TrainResult has no field or method trainLoss); did you mean TrainLoss?"},
		{"one edit", "fmt.Println(res.TrainLos)", "_.go:1300001:13: undefined method: TrainLos",
			"cell [3] line 1:17: res.TrainLos undefined (type sbi.TrainResult has no field or method TrainLos); did you mean TrainLoss?"},
		{"pointer to a compiled type", "pres.BestEpcoh()", "_.go:1300001:1: undefined selector: BestEpcoh",
			"cell [3] line 1:6: pres.BestEpcoh undefined (type *sbi.TrainResult has no field or method BestEpcoh); did you mean BestEpoch?"},
		{"cell type, a position of another cell", "y := 1\nz := tv.Alpah", "_.go:1200005:8: undefined selector Alpah",
			"cell [3] line 2:9: tv.Alpah undefined (type T has no field or method Alpah); did you mean Alpha?"},
		{"interface", "d.LogPrb(nil)", "_.go:1300001:1: undefined method: LogPrb",
			"cell [3] line 1:3: d.LogPrb undefined (type dist.Distribution has no field or method LogPrb); did you mean LogProb?"},
		{"type unknown", "q.Foo", "_.go:1300001:1: undefined selector: Foo",
			"cell [3] line 1:3: q.Foo undefined (q has no field or method Foo)"},
		{"a field's field", "u.V.Foo", "_.go:1300001:1: undefined selector: Foo",
			"cell [3] line 1:5: u.V.Foo undefined (u.V has no field or method Foo)"},
		{"the one at the message's position", "a := tv.Foo\nb := res.Foo", "_.go:1300002:6: undefined method: Foo",
			"cell [3] line 2:10: res.Foo undefined (type sbi.TrainResult has no field or method Foo)"},
		{"package member", "sbi.NewNpe(nil)", `_.go:1300001:1: package sbi "github.com/gosbi/gosbi/sbi" has no symbol NewNpe`,
			"cell [3] line 1:5: undefined: sbi.NewNpe; did you mean NewNPE?"},
		{"package member, nothing close", "x := sbi.Foo", `_.go:1300001:6: package sbi "github.com/gosbi/gosbi/sbi" has no symbol Foo`,
			"cell [3] line 1:10: undefined: sbi.Foo"},
		{"another explainer's hint is kept", "slices.Sort(xs)", "_.go:1300001:1: undefined selector: slices.Sort",
			"cell [3] line 1:8: undefined: slices.Sort (the interpreter's slices package has no sorting: use sort.Float64s, sort.Ints, sort.Strings or sort.Slice)"},
		{"a name the cell does not select", "res.TrainLoss", "_.go:1300001:1: undefined method: Foo",
			"cell [3] line 1:1: undefined method: Foo"},
		{"a path, not a name", "res.Foo", "_.go:1300001:1: undefined selector example.com/sim.Map",
			"cell [3] line 1:1: undefined selector example.com/sim.Map"},
	} {
		env := env
		for i, line := range strings.Split(c.cell, "\n") {
			it := Item{Text: line, Line: i + 1, Col: 1, Stmt: true, Cell: 3, Base: 1300000}
			it.Fset, it.Node, _ = parseItem(it)
			env.Items = append(env.Items, it)
		}
		if got := Compile(env, c.msg).Value; got != c.want {
			t.Errorf("%s: %q:\n got %q\nwant %q", c.name, c.msg, got, c.want)
		}
	}
}
