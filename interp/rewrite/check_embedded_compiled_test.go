package rewrite

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/stdlib"
)

// stdlibEnv is an environment whose packages are those of stdlib.Symbols named by the last
// element of their path.
func stdlibEnv() Env {
	paths := map[string]string{}
	for k := range stdlib.Symbols {
		i := strings.LastIndexByte(k, '/')
		paths[k[i+1:]] = k
	}
	return Env{
		IsPackage: func(name string) bool { return paths[name] != "" },
		Compiled: func(pkg, name string) reflect.Type {
			v := stdlib.Symbols[paths[pkg]][name]
			if !v.IsValid() || v.Kind() != reflect.Pointer || !v.IsNil() {
				return nil
			}
			return v.Type().Elem()
		},
	}
}

// TestCheckEmbeddedCompiledKinds declares structs that embed compiled types. Those whose
// copied methods include unexported ones end the process when printed; tar.Header, whose
// methods are all unexported, slipped through when the pass counted exported methods only.
// Those whose methods are all exported print as in Go but a pointer to them loses the
// methods, which the error says. The others are accepted.
func TestCheckEmbeddedCompiledKinds(t *testing.T) {
	const (
		fatal   = "fatal error of the Go runtime"
		pointer = "gives a pointer to it none of the methods"
	)
	for _, c := range []struct{ decl, want string }{
		{"type Ev struct{ time.Time }", fatal},
		{"type D struct{ time.Duration }", fatal},
		{"type B struct{ *bytes.Buffer }", fatal},
		{"type H struct{ tar.Header }", fatal},
		{"type H struct{ *tar.Header }", fatal},
		{"type P struct{ image.Point }", pointer},
		{"type P struct{ *image.Point }", pointer},
		{"type S struct{ sort.IntSlice }", pointer},
		{"type M struct{ *sync.Mutex }", pointer},
		{"type B struct{ bytes.Buffer }", ""},
		{"type M struct{ sync.Mutex }", ""},
		{"type U struct{ url.URL }", ""},
		{"type S struct{ fmt.Stringer }", ""},
		{"type P struct {\n\timage.Point\n\tZ int\n}", ""},
		{"type P struct{ Pt image.Point }", ""},
	} {
		units := []Unit{{Kind: Decl, Text: c.decl, Line: 1, Col: 1}}
		err := Run(stdlibEnv(), units)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v, want no error", c.decl, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "name the field")):
			t.Errorf("%q: %v, want an error with %q", c.decl, err, c.want)
		}
	}
}

// TestCheckEmbeddedCompiledRefused declares a struct that embeds a compiled type which
// reflect.StructOf refuses to embed (a pointer to an interface, which a package could declare
// as a named type): the error says that StructOf refused it, which is what is known, not that
// the type has unexported methods.
func TestCheckEmbeddedCompiledRefused(t *testing.T) {
	env := Env{
		IsPackage: func(name string) bool { return name == "pkg" },
		Compiled: func(pkg, name string) reflect.Type {
			if name == "R" {
				return reflect.TypeFor[*fmt.Stringer]()
			}
			return nil
		},
	}
	err := Run(env, []Unit{{Kind: Decl, Text: "type W struct{ pkg.R }", Line: 1, Col: 1}})
	switch {
	case err == nil:
		t.Fatal("no error, want one")
	case !strings.Contains(err.Error(), "reflect.StructOf refuses to embed pkg.R") || !strings.Contains(err.Error(), "name the field"):
		t.Errorf("error %v, want one that says reflect.StructOf refuses to embed pkg.R, and what to write", err)
	case strings.Contains(err.Error(), "unexported"):
		t.Errorf("error %v, which says the type has unexported methods", err)
	}
}
