package interp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/display"
)

// The compiled counterparts of the pointer-receiver types of TestFmtCommonPatterns.
type (
	fmtS     struct{ items []int }
	fmtQ     struct{ code int }
	fmtC     struct{ n int }
	fmtSq    struct{ side int }
	fmtShape interface{ Area() int }
)

func (s *fmtS) String() string  { return fmt.Sprint("stack of ", len(s.items)) }
func (q *fmtQ) Error() string   { return fmt.Sprint("code ", q.code) }
func (c *fmtC) String() string  { c.n++; return fmt.Sprint("calls ", c.n) }
func (q *fmtSq) String() string { return "square" }
func (q fmtSq) Area() int       { return q.side * q.side }

// fmtCalls prints a *fmtC twice and then its count, as the cell "String changes its
// receiver" does.
func fmtCalls() string {
	c := &fmtC{}
	return fmt.Sprintln(c) + fmt.Sprintln(c) + fmt.Sprintln(c.n)
}

// fmtPatternTypes declares the cell types of TestFmtCommonPatterns: T and E with methods on a
// value receiver, S, Q, C and Sq on a pointer receiver (fields that differ, for
// check-type-identity), and Shape, an interface that a value of Sq implements.
const fmtPatternTypes = "import \"fmt\"\n" +
	"type T struct{ a int }\nfunc (T) String() string { return \"hi\" }\n" +
	"type E struct{}\nfunc (E) Error() string { return \"boom\" }\n" +
	"type S struct{ items []int }\nfunc (s *S) String() string { return fmt.Sprint(\"stack of \", len(s.items)) }\n" +
	"type Q struct{ code int }\nfunc (q *Q) Error() string { return fmt.Sprint(\"code \", q.code) }\n" +
	"type W struct{ X T; P *S }\n" +
	"type C struct{ n int }\nfunc (c *C) String() string { c.n++; return fmt.Sprint(\"calls \", c.n) }\n" +
	"type Sq struct{ side int }\nfunc (q *Sq) String() string { return \"square\" }\nfunc (q Sq) Area() int { return q.side * q.side }\n" +
	"type Shape interface{ Area() int }\n"

type fmtPattern struct{ name, code, want string }

// fmtPatterns are common ways a cell prints a value whose type the cell shows, with Go's output.
func fmtPatterns() []fmtPattern {
	return []fmtPattern{
		{"value T", "t := T{1}\nfmt.Println(t)", fmt.Sprintln(fmtT{1})},
		{"literal T{}", "fmt.Println(T{1}, E{})", fmt.Sprintln(fmtT{1}, fmtE{})},
		{"&T{}", "fmt.Println(&T{1})", fmt.Sprintln(&fmtT{1})},
		{"pointer variable *T", "p := &T{1}\nfmt.Println(p)", fmt.Sprintln(&fmtT{1})},
		{"&S{}", "fmt.Println(&S{})", fmt.Sprintln(&fmtS{})},
		{"pointer variable *S", "s := &S{}\nfmt.Println(s)", fmt.Sprintln(&fmtS{})},
		{"pointer variable *S, two operands", "s := &S{[]int{1}}\nfmt.Println(\"s:\", s)", fmt.Sprintln("s:", &fmtS{[]int{1}})},
		{"var of type *S", "var s *S = &S{}\nfmt.Println(s)", fmt.Sprintln(&fmtS{})},
		{"nil *S", "var s *S\nfmt.Println(s)", fmt.Sprintln((*fmtS)(nil))},
		{"address of S variable", "s := S{}\nfmt.Println(&s)", fmt.Sprintln(&fmtS{})},
		{"value S (fields)", "s := S{[]int{1}}\nfmt.Println(s)", fmt.Sprintln(fmtS{[]int{1}})},
		{"literal S{} (fields)", "fmt.Println(S{})", fmt.Sprintln(fmtS{})},
		{"&Q{}", "fmt.Println(&Q{3})", fmt.Sprintln(&fmtQ{3})},
		{"pointer variable *Q", "q := &Q{3}\nfmt.Println(q)", fmt.Sprintln(&fmtQ{3})},
		{"value Q (fields)", "q := Q{3}\nfmt.Println(q)", fmt.Sprintln(fmtQ{3})},
		{"parameter *S", "func show(s *S) { fmt.Println(s) }\nshow(&S{})", fmt.Sprintln(&fmtS{})},
		{"method on *S prints receiver", "func (s *S) Show() { fmt.Println(s) }\n(&S{}).Show()", fmt.Sprintln(&fmtS{})},
		{"any holding float", "var a any = 2.5\nfmt.Println(a)", fmt.Sprintln(any(2.5))},
		{"[]*S", "fmt.Println(len(fmt.Sprint([]*S{{}})) > 0)", "true\n"},
		{"field selector", "w := W{X: T{1}, P: &S{}}\nfmt.Println(w.X, w.P)", fmt.Sprintln(fmtT{1}, &fmtS{})},
		{"call among operands", "func mk2() T { return T{1} }\nfmt.Println(mk2(), 1)", fmt.Sprintln(fmtT{1}, 1)},
		{"Sprintf %v T", "fmt.Print(fmt.Sprintf(\"%v\", T{1}))", fmt.Sprintf("%v", fmtT{1})},
		{"Sprintf %v *S var", "s := &S{}\nfmt.Print(fmt.Sprintf(\"%v\", s))", fmt.Sprintf("%v", &fmtS{})},
		{"Printf %s *S var", "s := &S{}\nfmt.Printf(\"%s\\n\", s)", fmt.Sprintf("%s\n", &fmtS{})},
		{"Printf %s &S{}", "fmt.Printf(\"%s\\n\", &S{})", fmt.Sprintf("%s\n", &fmtS{})},
		{"Printf %d T", "fmt.Printf(\"%d\\n\", T{1})", fmt.Sprintf("%d\n", fmtT{1})},
		{"Printf %v E var", "e := E{}\nfmt.Printf(\"%v\\n\", e)", fmt.Sprintf("%v\n", fmtE{})},
		{"Errorf %v *Q var", "q := &Q{3}\nfmt.Print(fmt.Errorf(\"e: %v\", q))", fmt.Sprint(fmt.Errorf("e: %v", &fmtQ{3}))},
		{"String changes its receiver", "c := &C{}\nfmt.Println(c)\nfmt.Println(c)\nfmt.Println(c.n)", fmtCalls()},
		{"&v, String changes v", "var c C\nfmt.Println(&c)\nfmt.Println(c.n)", func() string {
			var c fmtC
			return fmt.Sprintln(&c) + fmt.Sprintln(c.n)
		}()},
		{"&p of a pointer variable", "s := &S{}\nx := fmt.Sprint(&s)\nfmt.Println(x[:2] == \"0x\")", fmt.Sprintln(fmt.Sprint(new(*fmtS))[:2] == "0x")},
		{"session interface holding a value", "var sh Shape = Sq{2}\nfmt.Println(sh)", fmt.Sprintln(fmtShape(fmtSq{2}))},
		{"session interface, Printf %v", "var sh Shape = Sq{2}\nfmt.Printf(\"%v\\n\", sh)", fmt.Sprintf("%v\n", fmtShape(fmtSq{2}))},
		{"session interface parameter", "func area(sh Shape) { fmt.Println(sh) }\narea(Sq{3})", fmt.Sprintln(fmtShape(fmtSq{3}))},
		{"session interface in a slice", "shs := []Shape{Sq{2}}\nfmt.Println(shs[0])\nfor i := range shs {\n\tfmt.Println(shs[i])\n}", fmt.Sprintln(fmtSq{2}) + fmt.Sprintln(fmtSq{2})},
		{"session interface holding a pointer", "var sh Shape = &Sq{2}\nfmt.Println(sh)", fmt.Sprintln(fmtShape(&fmtSq{2}))},
		{"session interfaces holding pointers, used again", "var sa Shape = &Sq{1}\n_ = sa\nvar sb Shape = &Sq{2}\nfmt.Println(sb)\nfmt.Printf(\"%v %s\\n\", sa, sb)\nfmt.Println(sa, sb, Sq{3})",
			fmt.Sprintln(fmtShape(&fmtSq{2})) + fmt.Sprintf("%v %s\n", fmtShape(&fmtSq{1}), fmtShape(&fmtSq{2})) + fmt.Sprintln(fmtShape(&fmtSq{1}), fmtShape(&fmtSq{2}), fmtSq{3})},
		{"session interfaces holding a value and a pointer", "shs := []Shape{Sq{2}, &Sq{3}}\nfmt.Println(shs[0], shs[1])", fmt.Sprintln(fmtShape(fmtSq{2}), fmtShape(&fmtSq{3}))},
		{"session interface parameter holding a pointer", "func area2(sh Shape) { fmt.Println(sh) }\narea2(&Sq{3})\narea2(Sq{4})", fmt.Sprintln(fmtShape(&fmtSq{3})) + fmt.Sprintln(fmtShape(fmtSq{4}))},
		{"nil session interface", "var sh Shape\nfmt.Println(sh)", fmt.Sprintln(fmtShape(nil))},
	}
}

// The compiled counterparts of the types of TestFmtHeldValues, whose methods all have value
// receivers.
type (
	fmtNamed interface {
		fmt.Stringer
		Name() string
	}
	fmtPV         struct{ n string }
	fmtAnimal     interface{ Sound() string }
	fmtDog        struct{ name string }
	fmtCat        struct{ n int }
	fmtBox[T any] struct{ v T }
)

func (p fmtPV) String() string     { return "P:" + p.n }
func (p fmtPV) Name() string       { return p.n }
func (d fmtDog) Sound() string     { return "woof" }
func (d fmtDog) String() string    { return "dog " + d.name }
func (fmtCat) Sound() string       { return "meow" }
func (fmtBox[T]) Sound() string    { return "" }
func (b fmtBox[T]) String() string { return fmt.Sprint("box ", b.v) }

// fmtHeldTypes declares the cell types of TestFmtHeldValues: interfaces of the session, one
// with String and one without, and types whose String has a value receiver.
const fmtHeldTypes = "import \"fmt\"\n" +
	"type Named interface{ fmt.Stringer; Name() string }\n" +
	"type P struct{ n string }\nfunc (p P) String() string { return \"P:\" + p.n }\nfunc (p P) Name() string { return p.n }\n" +
	"type Animal interface{ Sound() string }\n" +
	"type Dog struct{ name string }\nfunc (d Dog) Sound() string { return \"woof\" }\nfunc (d Dog) String() string { return \"dog \" + d.name }\n"

// fmtHeld are ways a cell prints values held by interfaces of the session, each after the cell
// before (if any), with Go's output.
func fmtHeld() []struct{ name, before, code, want string } {
	named := func(ns ...string) []any {
		var vs []any
		for _, n := range ns {
			vs = append(vs, fmtNamed(fmtPV{n}))
		}
		return vs
	}
	return []struct{ name, before, code, want string }{
		{"two variables, one cell", "", "var x Named = P{\"a\"}\nfmt.Println(x)\nvar y Named = P{\"b\"}\nfmt.Println(y)",
			fmt.Sprintln(named("a")...) + fmt.Sprintln(named("b")...)},
		{"the second only", "", "var x2 Named = P{\"a\"}\n_ = x2\nvar y2 Named = P{\"b\"}\nfmt.Println(y2)", fmt.Sprintln(named("b")...)},
		{"four uses", "", "var a, b Named = P{\"a\"}, &P{\"b\"}\nvar c Named = P{\"c\"}\nfmt.Println(a, b)\nfmt.Println(c, a)\nfmt.Printf(\"%v|%s\\n\", b, c)\ns := fmt.Sprint(c, b)\nfmt.Println(s)",
			fmt.Sprintln(fmtNamed(fmtPV{"a"}), fmtNamed(&fmtPV{"b"})) + fmt.Sprintln(named("c", "a")...) +
				fmt.Sprintf("%v|%s\n", fmtNamed(&fmtPV{"b"}), fmtNamed(fmtPV{"c"})) + fmt.Sprintln(fmt.Sprint(fmtNamed(fmtPV{"c"}), fmtNamed(&fmtPV{"b"})))},
		{"variables of earlier cells", "var e1 Named = P{\"e\"}\nvar e2 Named = P{\"f\"}", "fmt.Println(e1)\nfmt.Println(e2, e1)",
			fmt.Sprintln(named("e")...) + fmt.Sprintln(named("f", "e")...)},
		{"parameter", "func show(n Named) { fmt.Println(n) }", "show(P{\"a\"})\nshow(&P{\"b\"})\nshow(P{\"c\"})",
			fmt.Sprintln(named("a")...) + fmt.Sprintln(fmtNamed(&fmtPV{"b"})) + fmt.Sprintln(named("c")...)},
		{"interface without String", "", "as := []Animal{Dog{\"rex\"}, &Dog{\"max\"}}\nfmt.Println(as[0], as[1])\nfmt.Print(fmt.Errorf(\"e: %v\", as[0]))",
			fmt.Sprintln(fmtAnimal(fmtDog{"rex"}), fmtAnimal(&fmtDog{"max"})) + fmt.Sprint(fmt.Errorf("e: %v", fmtAnimal(fmtDog{"rex"})))},
		{"nil", "", "var n Named\nfmt.Println(n)", fmt.Sprintln(fmtNamed(nil))},
		// Last: Dog names a variable of the session from here on.
		{"a variable of the cell named like a type", "type Cat struct{ n int }\nfunc (Cat) Sound() string { return \"meow\" }",
			"var c Animal = Cat{2}\nvar n3 Animal\nDog := 3\nfmt.Println(c, Dog)\nfmt.Println(n3, Dog)",
			fmt.Sprintln(fmtAnimal(fmtCat{2}), 3) + fmt.Sprintln(fmtAnimal(nil), 3)},
	}
}

// TestFmtHeldValues prints values held by interfaces of the session, several in a cell, in a
// session whose String methods have value receivers, and compares the output with Go's on
// compiled types with the same methods. When wrap-fmt-args passed such an operand to its
// generic helper, the second variable of a cell printed <nil> (var x Named = P{"a"}, then y),
// and two values of a []Animal failed in fmt (%!v(PANIC=String method: reflect.Set: …)).
func TestFmtHeldValues(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, fmtHeldTypes)
	for _, c := range fmtHeld() {
		t.Run(c.name, func(t *testing.T) {
			if c.before != "" {
				ts.mustRun(t, c.before)
			}
			checkPrinted(t, ts, c.code, c.want)
		})
	}
}

// TestFmtHeldGeneric prints values of a generic type with a value-receiver String held by an
// interface of the session, each in a new session, and compares the output with Go's. The
// type switch of wrap-fmt-args names no generic type, and such a value went bare (printed {3}
// where Go prints box 3); it goes through the generic helper, as before the switch.
func TestFmtHeldGeneric(t *testing.T) {
	const box = "type Box[T any] struct{ v T }\nfunc (b Box[T]) Sound() string { return \"\" }\nfunc (b Box[T]) String() string { return fmt.Sprint(\"box \", b.v) }\n"
	for _, c := range []struct{ name, code, want string }{
		{"value", "var b1 Animal = Box[int]{3}\nfmt.Println(b1)\nfmt.Printf(\"%v!\\n\", b1)",
			fmt.Sprintln(fmtAnimal(fmtBox[int]{3})) + fmt.Sprintf("%v!\n", fmtAnimal(fmtBox[int]{3}))},
		{"pointer", "var b2 Animal = &Box[int]{4}\nfmt.Println(b2)", fmt.Sprintln(fmtAnimal(&fmtBox[int]{4}))},
		{"with another type", "var b3 Animal = Box[int]{5}\nvar d3 Animal = Dog{\"x\"}\nfmt.Println(b3, d3)",
			fmt.Sprintln(fmtAnimal(fmtBox[int]{5}), fmtAnimal(fmtDog{"x"}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, fmtHeldTypes+box)
			checkPrinted(t, ts, c.code, c.want)
		})
	}
}

// checkPrinted runs code in the session and checks that it prints want.
func checkPrinted(t *testing.T, ts *testSession, code, want string) {
	t.Helper()
	ts.out.Reset()
	res := ts.run(code)
	if res.Err != nil {
		t.Errorf("%s: failed: %v", code, res.Err.Value)
		return
	}
	if got := ts.out.String(); got != want {
		t.Errorf("%s: printed %q, want %q", code, got, want)
	}
}

// fmtResults are cells whose result (the trailing expression) is a value of the cell's types,
// with what display shows for the compiled counterpart.
func fmtResults() []fmtPattern {
	show := func(v any) string { return display.PlainText(display.Render(v)) }
	return []fmtPattern{
		{"result T", "T{1}", show(fmtT{1})},
		{"result *S literal", "&S{}", show(&fmtS{})},
		{"result *S var", "s := &S{}\ns", show(&fmtS{})},
	}
}

// TestFmtCommonPatterns prints values of the cell's types in common ways, in a session where
// some String and Error methods have pointer receivers, and compares the output with Go's on
// compiled types with the same methods. Before wrap-fmt-args looked at the operands' types in
// such a session it passed every operand bare, and fmt printed all of them by their fields
// but for a value of S or Q (T{1} as {1}, &S{} and s := &S{} as &{[]}).
func TestFmtCommonPatterns(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, fmtPatternTypes)
	for _, c := range fmtPatterns() {
		t.Run(c.name, func(t *testing.T) { checkPrinted(t, ts, c.code, c.want) })
	}
	for _, c := range fmtResults() {
		t.Run(c.name, func(t *testing.T) {
			res := ts.run(c.code)
			if res.Err != nil {
				t.Errorf("%s: failed: %v", c.code, res.Err.Value)
				return
			}
			if got := text(res); got != c.want {
				t.Errorf("%s: shows %q, want %q", c.code, got, c.want)
			}
		})
	}
}

// TestFmtManySitesInAUnit prints a value of a type with String from more print calls in one
// function than wrap-fmt-args once rewrote in a unit: it wrapped one operand per step and
// stopped after maxSteps, so that the calls after the hundredth printed the value by its
// fields.
func TestFmtManySitesInAUnit(t *testing.T) {
	const sites = 120
	ts := newTestSession(t)
	ts.mustRun(t, fmtPatternTypes)
	var code, want strings.Builder
	code.WriteString("func many() {\n\tt := T{1}\n")
	for range sites {
		code.WriteString("\tfmt.Println(t)\n")
		want.WriteString(fmt.Sprintln(fmtT{1}))
	}
	code.WriteString("}\nmany()")
	checkPrinted(t, ts, code.String(), want.String())
}
