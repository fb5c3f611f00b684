package stdlib

import (
	"strings"
	"testing"
)

func TestTablesCoverThePackagesCellsUse(t *testing.T) {
	for _, key := range []string{
		"fmt/fmt", "math/rand/v2/rand", "slices/slices", "iter/iter", "gonum.org/v1/gonum/mat/mat", "gonum.org/v1/gonum/stat/distuv/distuv",
		"gonum.org/v1/gonum/optimize/optimize", "gonum.org/v1/plot/plotter/plotter", "gonum.org/v1/plot/vg/vgsvg/vgsvg",
		// kept next to groups that are left out
		"crypto/sha256/sha256", "crypto/md5/md5", "crypto/rand/rand", "crypto/hmac/hmac", "net/http/http", "net/url/url",
		"testing/testing", "runtime/pprof/pprof", "database/sql/sql", "text/template/template", "encoding/json/json",
	} {
		if _, ok := Symbols[key]; !ok {
			t.Errorf("no symbols for %s", key)
		}
	}
	for _, key := range []string{
		"internal/abi/abi", "unsafe/unsafe", "syscall/syscall", "debug/elf/elf", "debug/dwarf/dwarf", "go/ast/ast",
		"go/types/types", "crypto/tls/tls", "crypto/rsa/rsa", "net/http/pprof/pprof", "net/rpc/rpc", "expvar/expvar",
		"testing/quick/quick", "time/tzdata/tzdata",
	} {
		if _, ok := Symbols[key]; ok {
			t.Errorf("%s must not be offered to cells", key)
		}
		if path := key[:strings.LastIndexByte(key, '/')]; Omitted(path) == "" {
			t.Errorf("Omitted(%q) gives no reason", path)
		}
	}
	for _, path := range []string{"fmt", "crypto/sha256", "net/http", "example.com/debug/x", "github.com/x/go/ast"} {
		if why := Omitted(path); why != "" {
			t.Errorf("Omitted(%q) = %q, want none", path, why)
		}
	}
	// gosbi's own tables are in package stdlib/gosbi, which changes with gosbi's API.
	for key := range Symbols {
		if strings.HasPrefix(key, "github.com/gosbi/gosbi/") {
			t.Errorf("%s: gosbi's tables belong in package stdlib/gosbi", key)
		}
	}
}

func TestDocs(t *testing.T) {
	cases := []struct{ path, name, want string }{
		{"strings", "Split", "func Split(s, sep string) []string\n\nSplit slices s"},
		{"gonum.org/v1/gonum/mat", "Dense.Mul", "func (m *Dense) Mul(a, b Matrix)"},
	}
	for _, c := range cases {
		if d := Docs[c.path][c.name]; !strings.Contains(d, c.want) {
			t.Errorf("Docs[%s][%s] = %q, want it to contain %q", c.path, c.name, d, c.want)
		}
	}
}

func TestRestrictedExit(t *testing.T) {
	defer func() {
		if e, ok := recover().(Exit); !ok || e.Code != 3 || e.Error() != "os.Exit(3) called" {
			t.Errorf("os.Exit of a cell gave %v", e)
		}
	}()
	Symbols["os/os"]["Exit"].Interface().(func(int))(3)
	t.Error("os.Exit returned")
}
