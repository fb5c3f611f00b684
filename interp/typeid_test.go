package interp

import (
	"testing"
)

// The setups of TestTypeIdentityOfCellTypes: types the interpreter cannot tell apart, and
// types it can.
const (
	typeIDStructs = "type T1 struct{ A int }\ntype T2 struct{ A int }"
	typeIDInts    = "type A int\ntype B int"
	typeIDPoint   = "import \"image\"\ntype Pt struct{ X, Y int }\nvar _ = image.Point{}"
	typeIDErrors  = "import \"errors\"\ntype E1 struct{ A int }\nfunc (E1) Error() string { return \"e1\" }\n" +
		"type E2 struct{ A int }\nfunc (E2) Error() string { return \"e2\" }\nvar _ = errors.New"
	typeIDJSON    = "import \"encoding/json\"\ntype Celsius float64\ntype Label string\ntype Series []float64\nvar _ = json.Unmarshal"
	typeIDLibrary = "type Point struct{ X, Y float64 }\ntype ValidationError struct{ Msg string }\n" +
		"func (e ValidationError) Error() string { return e.Msg }"
	typeIDDistinct = "import \"fmt\"\ntype T struct{ A int }\ntype U struct{ B string }\n" +
		"type S struct{ C float64 }\nfunc (S) String() string { return \"s\" }\nvar _ = fmt.Sprint"
)

// jsonValue decodes a JSON object into the map jm, for the rows of TestTypeIdentityOfCellTypes
// that read it: 21 + len("x") + 10*len([1, 2]) is 42.
const jsonValue = "var jm map[string]any\n_ = json.Unmarshal([]byte(`{\"temp\": 21.5, \"name\": \"x\", \"xs\": [1, 2]}`), &jm)"

// TestTypeIdentityOfCellTypes runs type assertions (comma-ok and panicking), type switches and
// errors.As on values of the session's types in a table: each gives Go's answer or fails the
// cell with an explanation. The interpreter gives a type declared in a cell the type it is
// declared as without its name, so before check-type-identity each row that fails here gave
// a wrong answer (x.(T2) of a T1 was ok, x.(A) of an int too, a switch took the wrong case),
// and before bind-type-switch a switch without a variable matched no case of a cell's type.
func TestTypeIdentityOfCellTypes(t *testing.T) {
	const fails = "cannot tell"
	sessions := map[string]*testSession{}
	for _, c := range []struct{ name, setup, value, code, want, err string }{
		// two struct types of the same fields
		{"comma-ok, other type", typeIDStructs, "v := any(T1{})", "_, ok := v.(T2)\nok", "", fails},
		{"comma-ok, own type", typeIDStructs, "v := any(T1{})", "_, ok := v.(T1)\nok", "", fails},
		{"panicking", typeIDStructs, "v := any(T1{})", "t2 := v.(T2)\nt2", "", fails},
		{"switch", typeIDStructs, "v := any(T1{})", "s := \"none\"\nswitch v.(type) {\ncase T2:\n\ts = \"T2\"\n}\ns", "", fails},
		{"switch binding", typeIDStructs, "v := any(T1{})", "s := \"none\"\nswitch x := v.(type) {\ncase T1:\n\ts = fmt.Sprint(x)\n}\ns", "", fails},
		{"in a function", typeIDStructs, "v := any(T1{})", "func isT2(x any) bool { _, ok := x.(T2); return ok }\nisT2(v)", "", fails},
		{"pointers", typeIDStructs, "v := any(&T1{})", "_, ok := v.(*T2)\nok", "", fails},
		{"slices", typeIDStructs, "v := any([]T1{})", "_, ok := v.([]T2)\nok", "", fails},
		{"unnamed struct", typeIDStructs, "v := any(T1{})", "_, ok := v.(struct{ A int })\nok", "", fails},
		{"declared in the cell", typeIDStructs, "v := any(T1{})", "type T3 struct{ A int }\n_, ok := v.(T3)\nok", "", fails},
		{"an unrelated type", typeIDStructs, "v := any(T1{})", "_, ok := v.(string)\nok", "false", ""},
		// two named types of one underlying type, and a named type and its underlying type
		{"named ints", typeIDInts, "v := any(A(1))", "_, ok := v.(B)\nok", "", fails},
		{"int as A", typeIDInts, "v := any(3)", "_, ok := v.(A)\nok", "", fails},
		{"A as int", typeIDInts, "v := any(A(3))", "_, ok := any(A(3)).(int)\nok", "", fails},
		{"switch of int and A", typeIDInts, "v := any(A(3))", "s := \"none\"\nswitch v.(type) {\ncase int:\n\ts = \"int\"\ncase A:\n\ts = \"A\"\n}\ns", "", fails},
		{"pointer to int", typeIDInts, "v := any(new(int))", "_, ok := v.(*A)\nok", "", fails},
		{"float64", typeIDInts, "v := any(A(3))", "_, ok := v.(float64)\nok", "false", ""},
		// a cell's type and a library type of the same fields
		{"Pt as image.Point", typeIDPoint, "v := any(Pt{1, 2})", "_, ok := any(Pt{1, 2}).(image.Point)\nok", "", fails},
		{"image.Point as Pt", typeIDPoint, "v := any(image.Point{1, 2})", "_, ok := v.(Pt)\nok", "", fails},
		{"switch of Pt on an image.Point", typeIDPoint, "v := any(image.Point{1, 2})", "s := \"none\"\nswitch v.(type) {\ncase Pt:\n\ts = \"Pt\"\n}\ns", `"none"`, ""},
		{"switch of Pt and image.Point", typeIDPoint, "v := any(Pt{1, 2})", "s := \"none\"\nswitch v.(type) {\ncase image.Point:\n\ts = \"Point\"\ncase Pt:\n\ts = \"Pt\"\n}\ns", `"Pt"`, ""},
		// predeclared types after types declared as them: Go's answer unless the cell names one
		{"json float64", typeIDJSON, jsonValue, "t := jm[\"temp\"].(float64)\nt", "21.5", ""},
		{"comma-ok string", typeIDJSON, "v := any(\"hi\")", "s, ok := v.(string)\nfmt.Sprint(s, ok)", `"hitrue"`, ""},
		{"comma-ok []float64", typeIDJSON, "v := any([]float64{1})", "_, ok := v.([]float64)\nok", "true", ""},
		{"json walk", typeIDJSON, jsonValue, "n := 0\nfor _, v := range jm {\n\tswitch x := v.(type) {\n\tcase float64:\n\t\tn += int(x)\n" +
			"\tcase string:\n\t\tn += len(x)\n\tcase []any:\n\t\tn += 10 * len(x)\n\t}\n}\nn", "42", ""},
		{"Celsius", typeIDJSON, "v := any(Celsius(3))", "_, ok := v.(Celsius)\nok", "", fails},
		{"float64 in a cell naming Celsius", typeIDJSON, "v := any(2.5)", "c := Celsius(1)\n_, ok := v.(float64)\nfmt.Sprint(c, ok)", "", fails},
		{"string in a cell with a field Label", typeIDJSON, "type rec struct{ Label string }\nr := rec{Label: \"x\"}\nv := any(\"hi\")",
			"_ = r.Label\ns, ok := v.(string)\nfmt.Sprint(s, ok)", `"hitrue"`, ""},
		{"float64 in a cell with a variable Celsius", typeIDJSON + "\nvar _ = 0", "v := any(2.5)", "Celsius := 1.5\nf, ok := v.(float64)\nfmt.Sprint(f+Celsius, ok)", `"4 true"`, ""},
		{"string in a cell naming Label", typeIDJSON, "v := any(\"hi\")", "var l Label\n_, ok := v.(string)\nfmt.Sprint(l, ok)", "", fails},
		{"switch of Celsius and float64", typeIDJSON, "v := any(Celsius(3))", "s := \"none\"\nswitch v.(type) {\ncase float64:\n\ts = \"float64\"\ncase Celsius:\n\ts = \"Celsius\"\n}\ns", "", fails},
		// struct types of the same fields as compiled ones of packages the session does not import
		{"Point, no plotter", typeIDLibrary, "v := any(Point{1, 2})", "p, ok := v.(Point)\nfmt.Sprint(p.X, ok)", `"1 true"`, ""},
		{"switch of Point", typeIDLibrary, "v := any(Point{1, 2})", "s := \"none\"\nswitch v.(type) {\ncase Point:\n\ts = \"Point\"\n}\ns", `"Point"`, ""},
		{"ValidationError, no asn1", typeIDLibrary, "v := any(ValidationError{\"bad\"})", "e, ok := v.(ValidationError)\nfmt.Sprint(e.Msg, ok)", `"badtrue"`, ""},
		// after importing gosbi packages: those packages and the ones they import, where
		// display.CheckError (of ValidationError's fields) is only when display is
		{"ValidationError after importing sbi", typeIDLibrary, "import \"github.com/gosbi/gosbi/sbi\"\nv := any(ValidationError{\"bad\"})\nvar _ = sbi.ErrUntrained",
			"_, ok := v.(ValidationError)\nok", "true", ""},
		{"ValidationError after importing sbi/dist", typeIDLibrary, "import \"github.com/gosbi/gosbi/sbi/dist\"\nv := any(ValidationError{\"bad\"})\nvar _ = dist.Bounds",
			"e, ok := v.(ValidationError)\nfmt.Sprint(e.Msg, ok)", `"badtrue"`, ""},
		{"ValidationError after importing viz", typeIDLibrary, "import \"github.com/gosbi/gosbi/viz\"\nv := any(ValidationError{\"bad\"})\nvar _ = viz.Color",
			"_, ok := v.(ValidationError)\nok", "", "cannot tell ValidationError from display.CheckError"},
		{"ValidationError after importing display", typeIDLibrary, "import \"github.com/gosbi/gosbi/display\"\nv := any(ValidationError{\"bad\"})\nvar _ = display.Check",
			"_, ok := v.(ValidationError)\nok", "", "cannot tell ValidationError from display.CheckError"},
		{"Point after importing plotter", typeIDLibrary, "import \"gonum.org/v1/plot/plotter\"\nv := any(plotter.XY{1, 2})", "_, ok := v.(Point)\nok", "", fails},
		// error types
		{"errors.As", typeIDErrors, "v := E1{}", "var e2 E2\nerrors.As(v, &e2)", "", "errors.As cannot find a value of a cell's type"},
		{"error assertion", typeIDErrors, "v := any(E1{})", "_, ok := v.(E2)\nok", "", fails},
		// types the interpreter tells apart: Go's answers
		{"distinct, own type", typeIDDistinct, "v := any(T{1})", "t, ok := v.(T)\nfmt.Sprint(t.A, ok)", `"1 true"`, ""},
		{"distinct, other type", typeIDDistinct, "v := any(T{1})", "_, ok := v.(U)\nok", "false", ""},
		{"distinct, int", typeIDDistinct, "v := any(3)", "_, ok := v.(T)\nok", "false", ""},
		{"distinct switch", typeIDDistinct, "v := any(U{\"u\"})", "s := \"none\"\nswitch v.(type) {\ncase T:\n\ts = \"T\"\ncase U:\n\ts = \"U\"\n}\ns", `"U"`, ""},
		{"switch of a Stringer", typeIDDistinct, "v := any(S{})", "s := \"none\"\nswitch v.(type) {\ncase T:\n\ts = \"T\"\ncase S:\n\ts = \"S\"\n}\ns", `"S"`, ""},
		{"switch default", typeIDDistinct, "v := any(2.5)", "s := \"none\"\nswitch v.(type) {\ncase T:\n\ts = \"T\"\ndefault:\n\ts = \"default\"\n}\ns", `"default"`, ""},
		{"switch in a function", typeIDDistinct, "v := any(T{})", "func kind(x any) string {\n\tswitch x.(type) {\n\tcase U:\n\t\treturn \"U\"\n\tcase T:\n\t\treturn \"T\"\n\t}\n\treturn \"none\"\n}\nkind(v)", `"T"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := sessions[c.setup]
			if ts == nil {
				ts = newTestSession(t)
				ts.mustRun(t, "import \"fmt\"\nvar _ = fmt.Sprint")
				ts.mustRun(t, c.setup)
				sessions[c.setup] = ts
			}
			ts.mustRun(t, c.value)
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}

// TestAssertionOfWrappedValues runs type assertions and switches to a cell's struct types
// with fields and methods on values that a compiled interface held (where the interpreter
// keeps one of the value's fields in place of the value) and on others: each gives Go's
// answer or fails the cell with an explanation. Before guard-assertions, mk().(E) of an
// error that mk returned as E{1} was false, and so was a switch's case E.
func TestAssertionOfWrappedValues(t *testing.T) {
	const fails = "cannot tell the type of this value"
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"errors\"\n\t\"fmt\"\n)\ntype E struct{ code int }\nfunc (E) Error() string { return \"boom\" }\n"+
		"type S struct{ r float64 }\nfunc (S) String() string { return \"s\" }\n"+
		"type Shape interface{ Area() float64 }\ntype C struct{ side int }\nfunc (C) Area() float64 { return 1 }\n"+
		"type P struct{ n int }\nfunc (p *P) Error() string { return \"p\" }\n"+
		"func mk() error { return E{1} }\nfunc mkp() error { return &P{4} }\nvar _ = errors.New")
	for _, c := range []struct{ name, code, want, err string }{
		{"error from a function", "_, ok := mk().(E)\nok", "", fails},
		{"switch on an error", "s := \"none\"\nswitch mk().(type) {\ncase E:\n\ts = \"E\"\n}\ns", "", fails},
		{"switch binding on an error", "s := \"none\"\nswitch v := mk().(type) {\ncase E:\n\ts = fmt.Sprint(v.code)\n}\ns", "", fails},
		{"in a function", "func code(err error) int {\n\tif e, ok := err.(E); ok {\n\t\treturn e.code\n\t}\n\treturn -1\n}\ncode(mk())", "", fails},
		{"unwrapped", "_, ok := errors.Unwrap(fmt.Errorf(\"x: %w\", E{1})).(E)\nok", "", fails},
		{"a Stringer", "var st fmt.Stringer = S{1}\n_, ok := st.(S)\nok", "", fails},
		{"kept in any", "var a any = E{2}\ne, ok := a.(E)\nfmt.Sprint(e.code, ok)", `"2 true"`, ""},
		{"an interface of the cell", "var sh Shape = C{3}\nc, ok := sh.(C)\nfmt.Sprint(c.side, ok)", `"3 true"`, ""},
		{"a compiled error", "_, ok := errors.New(\"x\").(E)\nok", "false", ""},
		{"a nil error", "var ne error\n_, ok := ne.(E)\nok", "false", ""},
		{"a pointer", "p, ok := mkp().(*P)\nfmt.Sprint(p.n, ok)", `"4 true"`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}

// TestInterfaceAssertionsOfCellTypes runs type assertions and type switches to interfaces on
// values of the session's types in a table: each gives Go's answer or fails the cell with an
// explanation. The interpreter does not see a cell type's methods there, so before
// check-interface-assertions each row that fails here answered no, or took the default of
// the switch, where Go answers yes.
func TestInterfaceAssertionsOfCellTypes(t *testing.T) {
	const fails = "may answer wrongly: the interpreter does not see the methods"
	const stringers = "type S struct{ r float64 }\nfunc (S) String() string { return \"s\" }\n" +
		"type I int\nfunc (I) String() string { return \"i\" }\ntype P struct{ n int }\nfunc (*P) String() string { return \"p\" }"
	const errs = "type E struct{ code int }\nfunc (E) Error() string { return \"boom\" }"
	const embedded = "type Shape interface{ Area() float64 }\ntype Sq struct{ Shape }\ntype Str interface{ String() string }"
	const plain = "type N struct{ A int }\ntype M int"
	sessions := map[string]*testSession{}
	for _, c := range []struct{ name, setup, code, want, err string }{
		{"switch", stringers, "v := any(S{1})\ns := \"none\"\nswitch v.(type) {\ncase fmt.Stringer:\n\ts = \"Stringer\"\n}\ns", "", fails},
		{"switch binding", stringers, "v := any(S{1})\ns := \"none\"\nswitch x := v.(type) {\ncase fmt.Stringer:\n\ts = x.String()\n}\ns", "", fails},
		{"comma-ok", stringers, "v := any(S{1})\n_, ok := v.(fmt.Stringer)\nok", "", fails},
		{"panicking", stringers, "v := any(S{1})\nv.(fmt.Stringer).String()", "", fails},
		{"named int", stringers, "v := any(I(1))\n_, ok := v.(fmt.Stringer)\nok", "", fails},
		{"pointer receiver", stringers, "v := any(&P{1})\n_, ok := v.(fmt.Stringer)\nok", "", fails},
		{"in a function", stringers, "func g(v any) string {\n\tswitch x := v.(type) {\n\tcase fmt.Stringer:\n\t\treturn x.String()\n\t}\n\treturn \"none\"\n}\ng(S{1})", "", fails},
		{"interface literal", stringers, "v := any(S{1})\n_, ok := v.(interface{ String() string })\nok", "", fails},
		{"interface of the cell", stringers, "type Str interface{ String() string }\nv := any(S{1})\n_, ok := v.(Str)\nok", "", fails},
		{"case error", errs, "v := any(E{1})\ns := \"none\"\nswitch x := v.(type) {\ncase error:\n\ts = x.Error()\n}\ns", "", fails},
		{"comma-ok error", errs, "v := any(E{1})\n_, ok := v.(error)\nok", "", fails},
		{"promoted from an interface", embedded, "v := any(Sq{})\n_, ok := v.(Shape)\nok", "", fails},
		// interfaces whose methods no type of the session has, and the empty interface in a switch: Go's answers
		{"other interface", stringers, "v := any(S{1})\n_, ok := v.(error)\nok", "false", ""},
		{"compiled value", errs, "v := any(3)\n_, ok := v.(fmt.Stringer)\nok", "false", ""},
		{"compiled Stringer", errs, "v := any(time.Second)\ns, ok := v.(fmt.Stringer)\nfmt.Sprint(s, ok)", `"1s true"`, ""},
		{"case any", stringers, "v := any(S{1})\ns := \"none\"\nswitch v.(type) {\ncase any:\n\ts = \"any\"\n}\ns", `"any"`, ""},
		{"no methods", plain, "v := any(N{1})\n_, ok := v.(fmt.Stringer)\nok", "false", ""},
		{"switch, no methods", plain, "v := any(M(1))\ns := \"none\"\nswitch v.(type) {\ncase error:\n\ts = \"error\"\ncase fmt.Stringer:\n\ts = \"Stringer\"\n}\ns", `"none"`, ""},
		{"interface without those methods", embedded, "v := any(2.5)\n_, ok := v.(io.Reader)\nok", "false", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := sessions[c.setup]
			if ts == nil {
				ts = newTestSession(t)
				ts.mustRun(t, "import (\n\t\"fmt\"\n\t\"io\"\n\t\"time\"\n)\nvar _ = fmt.Sprint\nvar _ = io.EOF\nvar _ = time.Second")
				ts.mustRun(t, c.setup)
				sessions[c.setup] = ts
			}
			judgeCell(t, c.code, ts.run(c.code), c.want, c.err)
		})
	}
}
