package interp

import (
	"fmt"
	"testing"
)

// TestFmtNestedLate checks that fmt reads the elements of a slice, map or pointer operand
// that wrap-fmt-args mirrors when it prints them, after every operand was evaluated, as Go
// does: an operand evaluated after it that changes an element shows in the output.
func TestFmtNestedLate(t *testing.T) {
	type w3 struct {
		In deepP
		N  int
	}
	for _, c := range []struct{ name, code, want string }{
		{"slice", "ps3 := []P{{1}}; inc := func() int { ps3[0].X = 9; return 0 }; fmt.Println(ps3, inc())",
			func() string {
				ps3 := []deepP{{1}}
				inc := func() int { ps3[0].X = 9; return 0 }
				return fmt.Sprintln(ps3, inc())
			}()},
		{"pointer to a struct", "w3 := W{P{1}, 2}; bump := func() int { w3.In.X = 7; return 0 }; fmt.Println(&w3, bump())",
			func() string {
				w3 := w3{deepP{1}, 2}
				bump := func() int { w3.In.X = 7; return 0 }
				return fmt.Sprintln(&w3, bump())
			}()},
		{"map", "m3 := map[string]P{\"a\": {1}}; set := func() int { m3[\"a\"] = P{8}; return 0 }; fmt.Println(m3, set())",
			func() string {
				m3 := map[string]deepP{"a": {1}}
				set := func() int { m3["a"] = deepP{8}; return 0 }
				return fmt.Sprintln(m3, set())
			}()},
		{"Printf", "ps4 := []P{{1}}; inc4 := func() int { ps4[0].X = 6; return 0 }; fmt.Printf(\"%v %d\\n\", ps4, inc4())",
			func() string {
				ps4 := []deepP{{1}}
				inc4 := func() int { ps4[0].X = 6; return 0 }
				return fmt.Sprintf("%v %d\n", ps4, inc4())
			}()},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, deepTypes(false))
			ts.out.Reset()
			ts.mustRun(t, c.code)
			if got := ts.out.String(); got != c.want {
				t.Errorf("%s: printed %q, want %q", c.code, got, c.want)
			}
		})
	}
}

// TestFmtNestedFlags checks that the verbs, flags, widths and precisions of a format, a *
// width or precision among them, print a mirrored operand as Go prints the value.
func TestFmtNestedFlags(t *testing.T) {
	ps, m, w := []deepP{{1}, {2}}, map[string]deepP{"a": {3}}, deepW{deepP{5}, 1}
	ts := newTestSession(t)
	ts.mustRun(t, deepTypes(false))
	ts.mustRun(t, deepVars)
	for _, f := range []string{
		"%6v|%-6v|%.2v|%6.1s|%+v|%q|%x|%X|% x|%08v",
		"%*v|%-*v|%.*v|%*.*v|",
	} {
		var code, want string
		switch f[1] {
		case '6':
			code = fmt.Sprintf("fmt.Printf(%q, ps, ps, ps, ps, w, ps, ps, ps, ps, m)", f+"\n")
			want = fmt.Sprintf(f+"\n", ps, ps, ps, ps, w, ps, ps, ps, ps, m)
		default:
			code = fmt.Sprintf("fmt.Printf(%q, 6, ps, 5, m, 1, ps, 4, 2, w)", f+"\n")
			want = fmt.Sprintf(f+"\n", 6, ps, 5, m, 1, ps, 4, 2, w)
		}
		t.Run(f, func(t *testing.T) {
			ts.out.Reset()
			ts.mustRun(t, code)
			if got := ts.out.String(); got != want {
				t.Errorf("%s: printed %q, want %q", code, got, want)
			}
		})
	}
}

// TestFmtNestedSessionVar checks that a variable that an earlier cell declared with var
// prints its nested values as Go prints them: its type is that of its own value, also in a
// declaration of several variables or a group, where the type of another variable would give
// the mirror of the wrong type (the cell failed: cannot use type []int as type []main.P).
func TestFmtNestedSessionVar(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, deepTypes(false))
	ts.mustRun(t, "var big = make([]P, 2)\nvar xs, ys = []P{{1}}, []int{2}\nvar (\n\tzs = []P{{3}}\n\tn  = 1\n)")
	ts.out.Reset()
	ts.mustRun(t, "fmt.Println(big, xs, ys, zs, n)")
	want := fmt.Sprintln(make([]deepP, 2), []deepP{{1}}, []int{2}, []deepP{{3}}, 1)
	if got := ts.out.String(); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
