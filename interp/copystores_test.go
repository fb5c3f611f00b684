package interp

import "testing"

// TestStoreCopies stores values of a cell's type with methods into elements, fields and
// pointers' targets of interface types, in loops and in functions. The interpreter kept every
// element referring to the storage of the composite literal or the call's result, so that each
// held the last value (2 2 where Go prints 0 2), and failed a store into a slice or map of a
// cell's interface with the error of reflect; the rows up to "stored outside a loop" failed so
// before copy-stores. The last rows (a variable, append, a type without methods, a channel, a
// literal of a struct, a conversion to any) answered as Go does already.
func TestStoreCopies(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import \"fmt\"\nvar _ = fmt.Sprint\ntype P struct{ X int }\n"+
		"func (p P) String() string { return fmt.Sprintf(\"P(%d)\", p.X) }\n"+
		"type R struct{ Y int }\ntype S interface{ String() string }\ntype W struct{ A any }\n"+
		"type Maker struct{ base int }\nfunc (m Maker) Make(i int) P { return P{m.base + i} }\n"+
		"func mk(i int) P { return P{i} }\nfunc xOf(v any) int { return v.(P).X }")
	for _, c := range []struct{ name, code, want string }{
		{"slice of any", "xs := make([]any, 3)\nfor i := range xs {\n\txs[i] = P{i}\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"0 2"`},
		{"map of any", "m := map[int]any{}\nfor i := 0; i < 3; i++ {\n\tm[i] = P{i}\n}\nfmt.Sprint(xOf(m[0]), xOf(m[2]))", `"0 2"`},
		{"array of any", "var a [3]any\nfor i := range a {\n\ta[i] = P{i}\n}\nfmt.Sprint(xOf(a[0]), xOf(a[2]))", `"0 2"`},
		{"field of an element", "ws := make([]W, 3)\nfor i := range ws {\n\tws[i].A = P{i}\n}\nfmt.Sprint(xOf(ws[0].A), xOf(ws[2].A))", `"0 2"`},
		{"field through a pointer", "ws := make([]*W, 3)\nfor i := range ws {\n\tws[i] = &W{}\n\tws[i].A = P{i}\n}\nfmt.Sprint(xOf(ws[0].A), xOf(ws[2].A))", `"0 2"`},
		{"pointer's target", "xs := make([]any, 3)\nfor i := range xs {\n\tp := &xs[i]\n\t*p = P{i}\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"0 2"`},
		{"function's result", "xs := make([]any, 3)\nfor i := range xs {\n\txs[i] = mk(i)\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"0 2"`},
		{"method's result", "g := Maker{10}\nxs := make([]any, 3)\nfor i := range xs {\n\txs[i] = g.Make(i)\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"10 12"`},
		{"stored twice", "xs := make([]any, 3)\nfor i := range xs {\n\txs[i] = P{i}\n\txs[i] = P{2 * i}\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"0 4"`},
		{"in a function", "func fill() []any {\n\tout := make([]any, 3)\n\tfor i := range out {\n\t\tout[i] = P{i}\n\t}\n\treturn out\n}\nxs := fill()\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"0 2"`},
		{"in a case", "xs := make([]any, 4)\nfor i := range xs {\n\tswitch {\n\tcase i < 2:\n\t\txs[i] = P{i}\n\tdefault:\n\t\txs[i] = P{i}\n\t}\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[1]), xOf(xs[2]), xOf(xs[3]))", `"0 1 2 3"`},
		{"slice of a cell's interface", "ss := make([]S, 3)\nfor i := range ss {\n\tss[i] = P{i}\n}\nss[0].String() + \" \" + ss[2].String()", `"P(0) P(2)"`},
		{"map of a cell's interface", "ms := map[int]S{}\nfor i := 0; i < 3; i++ {\n\tms[i] = P{i}\n}\nms[0].String() + \" \" + ms[2].String()", `"P(0) P(2)"`},
		{"stored outside a loop", "ss := make([]S, 2)\nss[0] = P{0}\nss[1] = P{1}\nss[0].String() + \" \" + ss[1].String()", `"P(0) P(1)"`},
		// forms the interpreter answers as Go does
		{"a variable", "xs := make([]any, 3)\nfor i := range xs {\n\tv := P{i}\n\txs[i] = v\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"0 2"`},
		{"append", "var as []any\nfor i := 0; i < 3; i++ {\n\tas = append(as, P{i})\n}\nfmt.Sprint(xOf(as[0]), xOf(as[2]))", `"0 2"`},
		{"a type without methods", "xs := make([]any, 3)\nfor i := range xs {\n\txs[i] = R{i}\n}\nfmt.Sprint(xs[0].(R).Y, xs[2].(R).Y)", `"0 2"`},
		{"variables of type any", "var a0, a1 any\na0 = P{0}\na1 = P{1}\nfmt.Sprint(xOf(a0), xOf(a1))", `"0 1"`},
		{"a channel", "ch := make(chan any, 3)\nfor i := 0; i < 3; i++ {\n\tch <- P{i}\n}\na := <-ch\n<-ch\nc := <-ch\nfmt.Sprint(xOf(a), xOf(c))", `"0 2"`},
		{"a struct's literal", "ws := make([]W, 3)\nfor i := range ws {\n\tws[i] = W{A: P{i}}\n}\nfmt.Sprint(xOf(ws[0].A), xOf(ws[2].A))", `"0 2"`},
		{"a conversion to any", "xs := make([]any, 3)\nfor i := range xs {\n\txs[i] = any(P{i})\n}\nfmt.Sprint(xOf(xs[0]), xOf(xs[2]))", `"0 2"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := text(ts.mustRun(t, c.code)); got != c.want {
				t.Errorf("%q = %s, want %s", c.code, got, c.want)
			}
		})
	}
}
