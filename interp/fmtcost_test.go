package interp

import (
	"fmt"
	"strings"
	"testing"
)

// fmtCostTypes declares an interface of the session and n types that implement it, each with
// a String method, and a variable of the interface for each of the first vars types (modulo n).
func fmtCostTypes(n, vars int) string {
	var b strings.Builder
	b.WriteString("import \"fmt\"\ntype Shape interface{ Area() int }\n")
	for i := range n {
		fmt.Fprintf(&b, "type T%d struct{ n int }\nfunc (t T%[1]d) Area() int { return t.n }\nfunc (t T%[1]d) String() string { return \"t%[1]d\" }\n", i)
	}
	for i := range vars {
		fmt.Fprintf(&b, "var v%d Shape = T%d{%[1]d}\n", i, i%n)
	}
	return b.String()
}

// fmtCostCell returns a cell that prints the variables v0 … v(operands-1) of fmtCostTypes:
// all as the operands of one call when lines is 1, else one on each of lines lines.
func fmtCostCell(operands, lines int) string {
	if lines == 1 {
		vs := make([]string, operands)
		for i := range vs {
			vs[i] = fmt.Sprint("v", i)
		}
		return "_ = fmt.Sprintln(" + strings.Join(vs, ", ") + ")"
	}
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "_ = fmt.Sprintln(v%d)\n", i%operands)
	}
	return b.String()
}

// BenchmarkFmtHeldCost runs cells that print many operands of an interface type of the
// session, which wrap-fmt-args passes through its type switch (see heldFmtArg), in sessions
// with many or one type with a method String: the cost of rewriting and compiling a cell as
// the number of print sites grows.
func BenchmarkFmtHeldCost(b *testing.B) {
	for _, c := range []struct {
		name                   string
		types, operands, lines int
	}{
		{"41 types, one Println of 30", 41, 30, 1},
		{"41 types, 200 lines", 41, 30, 200},
		{"1 type, one Println of 30", 1, 30, 1},
		{"1 type, 200 lines", 1, 30, 200},
	} {
		b.Run(c.name, func(b *testing.B) {
			ts := newTestSession(b)
			ts.mustRun(b, fmtCostTypes(c.types, c.operands))
			cell := fmtCostCell(c.operands, c.lines)
			b.ResetTimer()
			for range b.N {
				ts.mustRun(b, cell)
			}
		})
	}
}

// BenchmarkFmtNestedCost runs cells that print, on each of 200 lines, a value whose type holds
// values of a cell's type with a method String (a slice, a map, a struct), which wrap-fmt-args
// passes through a mirror (see rewrite's fmtMirror), and, for comparison, a slice of a type
// without methods, which it leaves: the cost of rewriting, compiling and running such a cell.
func BenchmarkFmtNestedCost(b *testing.B) {
	const types = "import \"fmt\"\ntype P struct{ X int }\nfunc (p P) String() string { return \"p\" }\n" +
		"type W struct{ In P; N int }\ntype plain struct{ X int }\n" +
		"ps := []P{{1}, {2}}; m := map[string]P{\"a\": {3}}; w := W{P{4}, 5}; xs := []plain{{1}, {2}}"
	for _, c := range []struct{ name, operand string }{
		{"slice", "ps"},
		{"map", "m"},
		{"struct", "w"},
		{"slice without methods", "xs"},
	} {
		b.Run(c.name+", 200 lines", func(b *testing.B) {
			ts := newTestSession(b)
			ts.mustRun(b, types)
			cell := strings.Repeat("_ = fmt.Sprintln("+c.operand+")\n", 200)
			b.ResetTimer()
			for range b.N {
				ts.mustRun(b, cell)
			}
		})
	}
}
