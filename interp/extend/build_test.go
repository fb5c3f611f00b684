package extend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests share one cache, so that the one full worker build is done once.
var shared struct {
	once  sync.Once
	cache string
	w     *Worker
	err   error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gosbi-extend-test-")
	if err != nil {
		panic(err)
	}
	shared.cache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testBuilder(t testing.TB) *Builder {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the tests of package extend need the go command: %v", err)
	}
	b, err := NewBuilder()
	if err != nil {
		t.Fatal(err)
	}
	if b.GosbiDir == "" {
		t.Fatal("the test binary does not know the gosbi checkout it was built from")
	}
	b.CacheDir = shared.cache
	return b
}

// writeFile writes src to the file name, making its directory first.
func writeFile(t *testing.T, name, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// prepareModule prepares the build module of the notebook directory nb with b's go command;
// the caller unlocks it.
func prepareModule(t *testing.T, ctx context.Context, b *Builder, nb string) *buildModule {
	t.Helper()
	goCmd, err := b.goCommand(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.prepare(ctx, goCmd, nb)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func nbDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("testdata", "nb"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// simWorker builds (once) the worker that links the local module of testdata/nb.
func simWorker(t *testing.T) *Worker {
	t.Helper()
	b := testBuilder(t)
	shared.once.Do(func() {
		shared.w, shared.err = b.Build(context.Background(), Request{Dir: nbDir(t), Packages: []string{"example.com/sim"}})
		if shared.err == nil {
			t.Logf("first build of a worker linking example.com/sim: %v", shared.w.Elapsed)
		}
	})
	if shared.err != nil {
		t.Fatalf("build: %v", shared.err)
	}
	return shared.w
}

func TestBuildLocalModuleThroughGoWork(t *testing.T) {
	w := simWorker(t)
	script := filepath.Join(t.TempDir(), "s.go")
	src := `import "example.com/sim"
rng := rand.New(rand.NewPCG(1, 2))
x := sim.Simulate(rng, []float64{0.1, -0.2})
fmt.Println(len(x), sim.Scale(2), sim.Factor)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(w.Binary, "script", script).CombinedOutput()
	if err != nil {
		t.Fatalf("script on the extended worker: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "2 6 3"; got != want {
		t.Errorf("script printed %q, want %q", got, want)
	}
}

func TestBuildListsGenericIdentifiers(t *testing.T) {
	w := simWorker(t)
	want := map[string]string{"Sum": "generic function", "Pair": "generic type", "Number": "type constraint"}
	got := map[string]string{}
	for _, u := range w.Unavailable {
		if u.Package != "example.com/sim" {
			t.Errorf("unavailable identifier of an unexpected package: %v", u)
		}
		got[u.Name] = u.Why
	}
	if len(got) != len(want) {
		t.Errorf("unavailable identifiers %v, want exactly %v", w.Unavailable, want)
	}
	for name, why := range want {
		if !strings.HasPrefix(got[name], why) {
			t.Errorf("%s: reason %q, want one starting %q", name, got[name], why)
		}
	}
}

func TestBuildCacheHit(t *testing.T) {
	first := simWorker(t)
	b := testBuilder(t)
	w, err := b.Build(context.Background(), Request{Dir: nbDir(t), Packages: []string{"example.com/sim"}})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Cached || w.Binary != first.Binary {
		t.Fatalf("second build: cached %v, binary %s; want the cached %s", w.Cached, w.Binary, first.Binary)
	}
	if len(w.Unavailable) != len(first.Unavailable) {
		t.Errorf("cache hit lost the unavailable identifiers: %v", w.Unavailable)
	}
	t.Logf("cache hit: %v", w.Elapsed)
}

// BenchmarkBuildCacheHit is the time to find a cached worker (the target: under 1 s, so that
// a session switches at once): go test -run '^$' -bench BuildCacheHit ./interp/extend
func BenchmarkBuildCacheHit(b *testing.B) {
	bl := testBuilder(b)
	req := Request{Dir: nbDir(b), Packages: []string{"example.com/sim"}}
	if _, err := bl.Build(context.Background(), req); err != nil { // the first build, if not cached yet
		b.Fatal(err)
	}
	for b.Loop() {
		w, err := bl.Build(context.Background(), req)
		if err != nil || !w.Cached {
			b.Fatalf("cache hit: cached %v, err %v", w != nil && w.Cached, err)
		}
	}
}

// TestKeyFollowsLocalSources checks that editing a local module changes the key, so that a
// stale binary is never reused.
func TestKeyFollowsLocalSources(t *testing.T) {
	b := testBuilder(t)
	b.CacheDir = t.TempDir()
	nb := t.TempDir()
	mod := filepath.Join(nb, "m")
	writeFile(t, filepath.Join(nb, "go.work"), "go 1.22\n\nuse ./m\n")
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	writeFile(t, filepath.Join(mod, "m.go"), "package m\n\nfunc F() int { return 1 }\n")
	key := func() string {
		t.Helper()
		ctx := context.Background()
		m := prepareModule(t, ctx, b, nb)
		defer m.unlock()
		if err := m.resolve(ctx, []string{"example.com/m"}); err != nil {
			t.Fatal(err)
		}
		k, err := m.key(ctx, b, []string{"example.com/m"})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k1, k2 := key(), key()
	if k1 != k2 {
		t.Fatalf("the same inputs gave two keys: %s, %s", k1, k2)
	}
	writeFile(t, filepath.Join(mod, "docs", "notes.md"), "notes\n") // no Go files: not read by a build
	if k := key(); k != k1 {
		t.Errorf("a file outside the module's packages changed the key")
	}
	writeFile(t, filepath.Join(mod, "m.go"), "package m\n\nfunc F() int { return 22 }\n")
	if k3 := key(); k3 == k1 {
		t.Errorf("editing the local module kept the key %s", k1)
	}
}

func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		pkgs []string
		get  []string
		env  []string
		gocm string
		want []string // substrings of the error
		is   func(error) bool
	}{
		{name: "broken", pkgs: []string{"example.com/broken"},
			want: []string{`package "example.com/broken" does not build`, "broken.go:5"},
			is:   func(err error) bool { var be *BuildError; return errors.As(err, &be) }},
		{name: "missing module offline", pkgs: []string{"example.invalid/nothere/sim"}, env: []string{"GOPROXY=off"},
			want: []string{`"example.invalid/nothere/sim"`, "%go get example.invalid/nothere/sim@latest", "go get example.invalid/nothere/sim"},
			is:   func(err error) bool { var me *MissingError; return errors.As(err, &me) }},
		{name: "go get offline", get: []string{"example.invalid/mod@v1.2.3"}, env: []string{"GOPROXY=off"},
			want: []string{"example.invalid/mod@v1.2.3", "%go get example.invalid/mod@latest"},
			is:   func(err error) bool { var me *MissingError; return errors.As(err, &me) }},
		{name: "no go", pkgs: []string{"example.com/sim"}, gocm: filepath.Join("/nonexistent", "go"),
			want: []string{`"example.com/sim"`, "go command is not on PATH", "https://go.dev/dl"},
			is:   func(err error) bool { return errors.Is(err, ErrNoGo) }},
		{name: "program", pkgs: []string{"example.com/cmd"},
			want: []string{`"example.com/cmd" is a program`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testBuilder(t)
			b.CacheDir = t.TempDir()
			b.Env, b.Go = tc.env, tc.gocm
			_, err := b.Build(context.Background(), Request{Dir: nbDir(t), Packages: tc.pkgs, Get: tc.get})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if tc.is != nil && !tc.is(err) {
				t.Errorf("error %v (%T) is not of the expected kind", err, err)
			}
			bins, _ := filepath.Glob(filepath.Join(b.CacheDir, "bin", "*"))
			if len(bins) > 0 {
				t.Errorf("a failed build left %v in the cache", bins)
			}
		})
	}
}

func TestPrune(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i := range 5 {
		name := filepath.Join(dir, fmt.Sprintf("bin%d", i))
		for _, f := range []string{name, name + ".json"} {
			if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		used := base.Add(time.Duration(i) * time.Minute)
		if i == 0 {
			used = base.Add(time.Hour) // the oldest binary was used last
		}
		if err := os.Chtimes(name, used, used); err != nil {
			t.Fatal(err)
		}
	}
	prune(dir, 3)
	for i, want := range []bool{true, false, false, true, true} {
		_, err := os.Stat(filepath.Join(dir, fmt.Sprintf("bin%d", i)))
		if got := err == nil; got != want {
			t.Errorf("bin%d kept %v, want %v", i, got, want)
		}
		_, err = os.Stat(filepath.Join(dir, fmt.Sprintf("bin%d.json", i)))
		if got := err == nil; got != want {
			t.Errorf("bin%d.json kept %v, want %v", i, got, want)
		}
	}
}

// TestResolveThroughGoMod resolves packages of a notebook directory that has a go.mod and no
// go.work: a package of that module, and one of a module its replace directive points at a
// local directory.
func TestResolveThroughGoMod(t *testing.T) {
	b := testBuilder(t)
	b.CacheDir = t.TempDir()
	root := t.TempDir()
	nb := filepath.Join(root, "analysis")
	writeFile(t, filepath.Join(nb, "go.mod"), "module example.com/analysis\n\ngo 1.22\n\nrequire example.com/other v0.1.0\n\nreplace example.com/other => ../other\n")
	writeFile(t, filepath.Join(nb, "model", "model.go"), "package model\n\nfunc F() int { return 1 }\n")
	writeFile(t, filepath.Join(root, "other", "go.mod"), "module example.com/other\n\ngo 1.22\n")
	writeFile(t, filepath.Join(root, "other", "other.go"), "package other\n\nfunc G() int { return 2 }\n")
	ctx := context.Background()
	m := prepareModule(t, ctx, b, nb)
	defer m.unlock()
	pkgs := []string{"example.com/analysis/model", "example.com/other"}
	if err := m.resolve(ctx, pkgs); err != nil {
		t.Fatal(err)
	}
	ps, err := m.list(ctx, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"example.com/analysis/model": nb, "example.com/other": filepath.Join(root, "other")}
	for _, p := range ps {
		if p.Module == nil || p.Module.Dir != want[p.ImportPath] {
			t.Errorf("%s: module %+v, want the directory %s", p.ImportPath, p.Module, want[p.ImportPath])
		}
	}
}
