package interp

import (
	"errors"
	"fmt"
	"testing"
)

// goSprintf is fmt.Sprintf out of vet's sight, for the formats with Go's error texts.
var goSprintf = fmt.Sprintf

// TestFmtPrintfByMethods runs cells that format values of the cell's types with fmt's
// functions with a format and compares their output with fmt's on compiled types with the
// same methods: the verbs for which fmt calls String or Error (%v %+v %s %q %x %X) call them,
// the others (%d) print the value as before, and widths, flags, %% and missing or extra
// operands print as in Go.
func TestFmtPrintfByMethods(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "import (\n\t\"errors\"\n\t\"fmt\"\n\t\"strings\"\n)\ntype T struct{ a int }\nfunc (T) String() string { return \"hi\" }\n"+
		"type E struct{}\nfunc (E) Error() string { return \"boom\" }\ntype I int\nfunc (I) String() string { return \"eye\" }\n"+
		"type plain struct{ a int }")
	_, unwrapsToE := errors.Unwrap(fmt.Errorf("e: %w", fmtE{})).(fmtE)
	for _, c := range []struct{ name, code, want string }{
		{"Printf %v", `fmt.Printf("%v|\n", T{})`, fmt.Sprintf("%v|\n", fmtT{})},
		{"Printf %+v", `fmt.Printf("%+v|\n", T{})`, fmt.Sprintf("%+v|\n", fmtT{})},
		{"Printf %s of an error", `fmt.Printf("%s|\n", E{})`, fmt.Sprintf("%s|\n", fmtE{})},
		{"Printf %q", `fmt.Printf("%q %q\n", T{}, E{})`, fmt.Sprintf("%q %q\n", fmtT{}, fmtE{})},
		{"Printf %x %X", `fmt.Printf("%x %X % x %#x\n", T{}, E{}, T{}, T{})`, fmt.Sprintf("%x %X % x %#x\n", fmtT{}, fmtE{}, fmtT{}, fmtT{})},
		{"Printf %d of an int type with String", `fmt.Printf("%d %v %5d|\n", I(2), I(2), I(7))`, fmt.Sprintf("%d %v %5d|\n", fmtI(2), fmtI(2), fmtI(7))},
		{"Printf %x of an int type with String", `fmt.Printf("%x %o %b\n", I(255), I(8), I(5))`, fmt.Sprintf("%x %o %b\n", fmtI(255), fmtI(8), fmtI(5))},
		{"width and flags", `fmt.Printf("%-8s|%8v|%.1s|%6.2q|\n", T{}, E{}, T{}, T{})`, fmt.Sprintf("%-8s|%8v|%.1s|%6.2q|\n", fmtT{}, fmtE{}, fmtT{}, fmtT{})},
		{"star width", "w := 6\nfmt.Printf(\"%*s|%-*v|%.*s|\\n\", w, T{}, w, E{}, 1, T{})", fmt.Sprintf("%*s|%-*v|%.*s|\n", 6, fmtT{}, 6, fmtE{}, 1, fmtT{})},
		{"percent", `fmt.Printf("100%% %v %-3% %s\n", T{}, E{})`, goSprintf("100%% %v %-3% %s\n", fmtT{}, fmtE{})},
		{"missing operand", `fmt.Printf("%v %s %d\n", T{})`, goSprintf("%v %s %d\n", fmtT{})},
		{"extra operand", `fmt.Printf("%v\n", T{}, 1, "x")`, goSprintf("%v\n", fmtT{}, 1, "x")},
		{"no verb at the end", `fmt.Printf("%v %", T{})`, goSprintf("%v %", fmtT{})},
		{"mixed with plain values", `fmt.Printf("%v %d %s %v %t\n", plain{1}, 3, "s", T{}, true)`,
			fmt.Sprintf("%v %d %s %v %t\n", struct{ a int }{1}, 3, "s", fmtT{}, true)},
		{"Sprintf", `fmt.Print(fmt.Sprintf("<%v>", E{}))`, fmt.Sprintf("<%v>", fmtE{})},
		{"Sprintf of a variable", "x := T{}\nfmt.Print(fmt.Sprintf(\"<%s>\", x))", fmt.Sprintf("<%s>", fmtT{})},
		{"Fprintf", "var sb strings.Builder\nfmt.Fprintf(&sb, \"%v-%s\", T{}, E{})\nfmt.Print(sb.String())", fmt.Sprintf("%v-%s", fmtT{}, fmtE{})},
		{"Errorf %v", `fmt.Print(fmt.Errorf("e: %v", E{}).Error())`, fmt.Errorf("e: %v", fmtE{}).Error()},
		{"Errorf %w", `fmt.Print(fmt.Errorf("e: %w", E{}).Error())`, fmt.Errorf("e: %w", fmtE{}).Error()},
		{"Errorf %w unwraps to the value", "err := fmt.Errorf(\"e: %w\", E{})\n_, ok := errors.Unwrap(err).(E)\nfmt.Print(ok)",
			fmt.Sprint(unwrapsToE)},
		{"raw string format", "fmt.Printf(`%v|`, T{})", fmt.Sprintf(`%v|`, fmtT{})},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.out.Reset()
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%s: printed %q, want %q", c.code, got, c.want)
			}
		})
	}
}

// TestFmtErrorfWrapsWithPointerMethods checks that Errorf's %w wraps a value of a cell's error
// type in a session where a String or Error method has a pointer receiver (print operands stay
// bare there): fmt wrote %!w and errors.Unwrap gave nil before.
func TestFmtErrorfWrapsWithPointerMethods(t *testing.T) {
	ts := newTestSession(t)
	// P has a field so that the interpreter can tell it from E (see check-type-identity).
	ts.mustRun(t, "import (\n\t\"errors\"\n\t\"fmt\"\n)\ntype E struct{}\nfunc (E) Error() string { return \"boom\" }\n"+
		"type P struct{ n int }\nfunc (*P) String() string { return \"ptr\" }")
	for _, c := range []struct{ code, want string }{
		{"fmt.Print(fmt.Errorf(\"e: %w\", E{}))", fmt.Sprint(fmt.Errorf("e: %w", fmtE{}))},
		{"_, ok := errors.Unwrap(fmt.Errorf(\"e: %v %w\", E{}, E{})).(E)\nfmt.Print(ok)", "true"},
		{"fmt.Print(P{})", fmt.Sprint(struct{ n int }{})}, // by its fields, as Go prints it
	} {
		ts.out.Reset()
		ts.mustRun(t, c.code)
		if got := ts.out.String(); got != c.want {
			t.Errorf("%s: printed %q, want %q", c.code, got, c.want)
		}
	}
}
