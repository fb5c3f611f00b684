package interp

import "testing"

// returnPrelude declares a struct whose fields hold functions, the values the return tests
// call.
const returnPrelude = "import (\"errors\"; \"fmt\"; \"math\")\n" +
	"type S struct {\n\tf func(x []int) []int\n\tn func() int\n\te func() error\n\ttwo func() (int, int)\n\tmk func() func() int\n\tin struct{ n func() int }\n}\n" +
	"s := S{f: func(x []int) []int { return append(x, 1) }, n: func() int { return 7 }, e: func() error { return errors.New(\"E\") },\n" +
	"\ttwo: func() (int, int) { return 3, 4 }, mk: func() func() int { return func() int { return 8 } }}\n" +
	"s.in.n = func() int { return 9 }\nfv := s.f\nx := []int{5}\nfunc seven() int { return 7 }\nfunc two() (int, int) { return 1, 2 }"

// TestReturnCallOfFuncField runs return statements whose operands call a function held in a
// struct field (directly, through a pointer, a nested field or a slice element, or copied
// into a variable) and checks the output against what compiled Go prints (each want was
// printed by go run of the same code). The interpreter stored such a call's results straight
// into the function's results and then overwrote them with zero values: the rows up to
// "nil for an interface result" printed zeros or empty slices before parenthesize-returns
// ("[5] []" for the first). The rows after them printed Go's answer already and must keep it.
func TestReturnCallOfFuncField(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, returnPrelude)
	for _, c := range []struct{ name, code, want string }{
		{"variable copied from a field", "func r1(s S, x []int) ([]int, []int) { return x, fv(x) }\nfmt.Println(r1(s, x))", "[5] [5 1]\n"},
		{"field, second result", "func r2(s S, x []int) (int, []int) { return 1, s.f(x) }\nfmt.Println(r2(s, x))", "1 [5 1]\n"},
		{"field, same type as the first result", "func r3(s S) (int, int) { return 1, s.n() }\nfmt.Println(r3(s))", "1 7\n"},
		{"field, first result", "func r4(s S) (int, int) { return s.n(), 1 }\nfmt.Println(r4(s))", "7 1\n"},
		{"field through a pointer", "func r5(s *S, x []int) ([]int, []int) { return x, s.f(x) }\nfmt.Println(r5(&s, x))", "[5] [5 1]\n"},
		{"function literal", "g := func(s S, x []int) ([]int, []int) { return x, s.f(x) }\nfmt.Println(g(s, x))", "[5] [5 1]\n"},
		{"nested field", "func r6(s S) (int, int) { return 1, s.in.n() }\nfmt.Println(r6(s))", "1 9\n"},
		{"field of a slice element", "func r7(ss []S) (int, int) { return 1, ss[0].n() }\nfmt.Println(r7([]S{s}))", "1 7\n"},
		{"named results", "func r8(s S) (a, b int) { return 1, s.n() }\nfmt.Println(r8(s))", "1 7\n"},
		{"error result", "func r9(s S) (int, error) { return 1, s.e() }\nfmt.Println(r9(s))", "1 E\n"},
		{"result that is a function", "func r10(s S) (int, func() int) { return 1, s.mk() }\na, h := r10(s)\nfmt.Println(a, h())", "1 8\n"},
		{"variable of the function copied from a field", "func r11(s S) (int, int) { n := s.n; return 1, n() }\nfmt.Println(r11(s))", "1 7\n"},
		{"local variable named like a function", "func r12(s S) (int, int) { seven := s.n; return 1, seven() }\nfmt.Println(r12(s))", "1 7\n"},
		{"one result of interface type", "func r13(s S) any { return s.n() }\nfmt.Println(r13(s))", "7\n"},
		{"several results of one call, converted", "func r14(s S) (any, int) { return s.two() }\nfmt.Println(r14(s))", "3 4\n"},
		{"recursion", "func r15(s S, n int) (int, int) {\n\tif n == 0 {\n\t\treturn 0, s.n()\n\t}\n\td, v := r15(s, n-1)\n\treturn d + 1, v\n}\nfmt.Println(r15(s, 3))", "3 7\n"},
		{"defer changes a named result", "func r16(s S) (v, w int) { defer func() { v *= 10 }(); return s.n(), 1 }\nfmt.Println(r16(s))", "70 1\n"},
		{"defer and recover", "func r17(s S, fail bool) (v int, err error) {\n\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tv, err = -1, fmt.Errorf(\"recovered: %v\", r)\n\t\t}\n\t}()\n\tif fail {\n\t\tpanic(\"boom\")\n\t}\n\treturn s.n(), s.e()\n}\nfmt.Println(r17(s, false))\nfmt.Println(r17(s, true))", "7 E\n-1 recovered: boom\n"},
		{"type declared in the function", "func r18(s S) (any, int) { type L struct{ v int }; return L{s.n()}, s.n() }\nfmt.Println(r18(s))", "{7} 7\n"},
		{"generic function", "func r20[T any](s S, v T) (T, int) { return v, s.n() }\nfmt.Println(r20(s, \"a\"))", "a 7\n"},
		{"nil for an interface result", "func r19(s S) (any, error) { return s.n(), nil }\nfmt.Println(r19(s))", "7 <nil>\n"},
		// forms the interpreter answered as Go does
		{"one result", "func k1(s S, x []int) []int { return s.f(x) }\nfmt.Println(k1(s, x))", "[5 1]\n"},
		{"bare return", "func k2(s S) (a, b int) { a = 1; b = s.n(); return }\nfmt.Println(k2(s))", "1 7\n"},
		{"several results of one call", "func k3(s S) (int, int) { return s.two() }\nfmt.Println(k3(s))", "3 4\n"},
		{"declared and package functions", "func k4() (float64, int) { return math.Sqrt(4), seven() }\nfmt.Println(k4())", "2 7\n"},
		{"several results of a declared function", "func k5() (int, int) { return two() }\nfmt.Println(k5())", "1 2\n"},
		{"function literal result", "func k6() (int, func() int) { return 1, func() int { return 2 } }\na, h := k6()\nfmt.Println(a, h())", "1 2\n"},
		{"closure variable", "func k7() (int, int) { g := func() int { return 3 }; return 1, g() }\nfmt.Println(k7())", "1 3\n"},
		{"map and slice of functions", "func k8() (int, int, int) { m := map[string]func() int{\"a\": seven}; fs := []func() int{seven}; return 1, m[\"a\"](), fs[0]() }\nfmt.Println(k8())", "1 7 7\n"},
		{"value defined first", "func k9(s S, x []int) ([]int, []int) { y := s.f(x); return x, y }\nfmt.Println(k9(s, x))", "[5] [5 1]\n"},
		{"constants and nil", "func k10() (float64, error, string) { return 1, nil, \"a\" }\nfmt.Println(k10())", "1 <nil> a\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts.out.Reset()
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%q printed\n%s\nwant\n%s", c.code, got, c.want)
			}
		})
	}
}
