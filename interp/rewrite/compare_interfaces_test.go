package rewrite

import "testing"

// TestCompareInterfaces checks which comparisons compare-interfaces sends to the session's
// helper: those with an operand of a compiled interface type with methods, not with nil.
func TestCompareInterfaces(t *testing.T) {
	env := withStringer(Env{
		HasMethods:  func(name string) bool { return true },
		TypeDecls:   func() []string { return []string{"type E struct{ i int }"} },
		MethodDecls: func() []string { return []string{"func (e E) Error() string"} },
		Definition: func(name string) (string, string) {
			switch name {
			case "es":
				return "[]error", ""
			case "err":
				return "error", ""
			case "s":
				return "fmt.Stringer", ""
			case "n":
				return "int", ""
			case "x":
				return "any", ""
			}
			return "", ""
		},
	})
	for _, c := range []struct{ in, want string }{
		{"ok := err == E{1}", "ok := _gosbiEqual(err, E{1})"},
		{"ok := err != es[0]", "ok := !_gosbiEqual(err, es[0])"},
		{"ok := E{1} == err && n == 2", "ok := _gosbiEqual(E{1}, err) && n == 2"},
		{"ok := s == s", "ok := _gosbiEqual(s, s)"},
		{"for i := range es {\n\tif es[i] == err || es[i] == (E{i}) {\n\t}\n}", "for i := range es {\n\tif _gosbiEqual(es[i], err) || _gosbiEqual(es[i], (E{i})) {\n\t}\n}"},
		{"ok := any(err == es[0]) == x", "ok := any(_gosbiEqual(err, es[0])) == x"},
		// left as written
		{"ok := err == nil", ""},
		{"ok := nil != err", ""},
		{"ok := n == 2", ""},
		{"ok := x == E{1}", ""},
		{"ok := err == io.EOF", ""},
		{"ok := io.EOF != err", ""},
	} {
		checkRewrite(t, compareInterfaces, env, c.in, c.want)
	}
}
