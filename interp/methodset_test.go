package interp

import (
	"maps"
	"slices"
	"testing"
)

// TestMethodSetOfEmbeddings checks what methodSet counts of a type that gets methods by
// embedding. It sees the methods of an embedded interface (error, fmt.Stringer), of an
// embedded cell type and of an embedded compiled concrete type (time.Time, *bytes.Buffer,
// whose pointer methods *Buf gets), which Go promotes, for guard-assertions; and embedding
// turns on no wrapping of fmt's operands (print) nor the errors helpers: fmt prints a value of
// a type embedding an interface with yaegi's panic whether or not wrap-fmt-args wraps it, and a
// value of a type embedding a compiled one never becomes a compiled interface. An embedded
// interface's Error counts only of fmt's signature: testing.TB's Error(args ...any) makes no
// error.
func TestMethodSetOfEmbeddings(t *testing.T) {
	for _, c := range []struct {
		name, setup             string
		print, errorType, chain bool
		types                   []string // the types with methods, sorted
	}{
		{"declared String", "type T struct{ a int }\nfunc (T) String() string { return \"t\" }", true, false, false, []string{"T"}},
		{"declared Error and Unwrap", "type E struct{ err error }\nfunc (e *E) Error() string { return \"e\" }\nfunc (e *E) Unwrap() error { return e.err }",
			true, true, true, []string{"E"}},
		{"generic receivers", "type G[T any] struct{ v T }\nfunc (g *G[T]) M() {}\ntype H[K comparable, V any] struct{ m map[K]V }\nfunc (h H[K, V]) N() {}",
			false, false, false, []string{"G", "H"}},
		{"embedded error", "type MyErr struct{ error }", false, true, false, []string{"MyErr"}},
		{"embedded interface of Error(args ...any), no error", "import \"testing\"\ntype T struct{ testing.TB; n int }", false, false, false, []string{"T"}},
		{"embedded fmt.Stringer", "import \"fmt\"\ntype S struct{ fmt.Stringer }", false, false, false, []string{"S"}},
		{"embedded time.Time", "import \"time\"\ntype Ev struct{ time.Time; n int }", false, false, false, []string{"Ev"}},
		{"embedded *bytes.Buffer", "import \"bytes\"\ntype Buf struct{ *bytes.Buffer; n int }", false, false, false, []string{"Buf"}},
		{"embedded bytes.Buffer, pointer methods", "import \"bytes\"\ntype B struct{ bytes.Buffer }", false, false, false, []string{"B"}},
		{"embedded compiled type, twice", "import \"time\"\ntype In struct{ time.Duration; n int }\ntype Out struct{ In; m int }",
			false, false, false, []string{"In", "Out"}},
		{"embedded sync.WaitGroup value, no value methods", "import \"sync\"\ntype W struct{ sync.WaitGroup; n int }", false, false, false, []string{"W"}},
		{"embedded compiled type without methods", "import \"image\"\ntype C struct{ image.Config; n int }\ntype D struct{ C }", false, false, false, nil},
		{"embedded cell type, twice", "type In struct{ a int }\nfunc (In) M() {}\ntype Out struct{ In }\ntype Out2 struct{ *Out }",
			false, false, false, []string{"In", "Out", "Out2"}},
		{"no methods", "type A struct{ a int }\ntype B struct{ A }", false, false, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTestSession(t)
			ts.mustRun(t, c.setup)
			ms := ts.methodSet(nil, ts.compiledSymbols(ts.packagePaths(nil)))
			types := slices.Sorted(maps.Keys(ms.types))
			if ms.print != c.print || ms.errorType != c.errorType || ms.chain != c.chain || !slices.Equal(types, c.types) {
				t.Errorf("print %v, errorType %v, chain %v, types %v; want %v, %v, %v, %v",
					ms.print, ms.errorType, ms.chain, types, c.print, c.errorType, c.chain, c.types)
			}
		})
	}
}
