package extend

import (
	"archive/zip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeProxy lays out a module proxy (the GOPROXY file:// protocol) in dir that serves
// example.com/hello v1.0.0.
func writeProxy(t *testing.T, dir string) {
	t.Helper()
	v := filepath.Join(dir, "example.com", "hello", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/hello\n\ngo 1.22\n"
	files := map[string]string{
		"list":        "v1.0.0\n",
		"v1.0.0.info": `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`,
		"v1.0.0.mod":  mod,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(v, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, src := range map[string]string{"go.mod": mod, "hello.go": "package hello\n\n// Greeting is a greeting.\nfunc Greeting() string { return \"hello\" }\n"} {
		w, err := zw.Create("example.com/hello@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(src))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestGetFromProxy resolves a module that no module of the notebook provides through the
// module proxy, as %go get does: with a fresh module cache, so that only the proxy can have
// provided it (the real module cache serves gosbi's own dependencies, as a second proxy).
func TestGetFromProxy(t *testing.T) {
	b := testBuilder(t)
	b.CacheDir = t.TempDir()
	proxy := t.TempDir()
	writeProxy(t, proxy)
	b.Env = proxyEnv(t, proxy)
	nb := t.TempDir() // no go.mod, no go.work
	ctx := context.Background()
	if err := b.Get(ctx, nb, "example.com/hello@v1.0.0"); err != nil {
		t.Fatal(err)
	}
	m := prepareModule(t, ctx, b, nb)
	defer m.unlock()
	ps, err := m.list(ctx, []string{"example.com/hello"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || ps[0].Error != nil || ps[0].Module == nil || ps[0].Module.Version != "v1.0.0" {
		t.Fatalf("example.com/hello after %%go get: %+v", ps)
	}
	if err := m.get(ctx, "example.com/hello@v9.9.9"); err == nil || !strings.Contains(err.Error(), "%go get example.com/hello@latest") {
		t.Errorf("a version the proxy lacks: error %v, want one naming %%go get", err)
	}
}

// proxyEnv is the go command's environment for a test that fetches modules from the file
// proxy in dir, then from this machine's module download cache (so that nothing comes from the
// network), into a fresh module cache.
func proxyEnv(t *testing.T, dir string) []string {
	t.Helper()
	real := strings.TrimSpace(goEnv(t, "GOMODCACHE"))
	return []string{"GOPROXY=file://" + filepath.ToSlash(dir) + ",file://" + filepath.ToSlash(filepath.Join(real, "cache", "download")),
		"GOMODCACHE=" + t.TempDir(), "GOSUMDB=off", "GOFLAGS=-modcacherw"}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	m := &buildModule{b: &Builder{}, goCmd: "go"}
	out, err := m.goOut(context.Background(), ".", nil, "env", name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeGosbiProxy serves the gosbi checkout root as module version v in the proxy dir.
func writeGosbiProxy(t *testing.T, dir, root, v string) {
	t.Helper()
	vd := filepath.Join(dir, "github.com", "gosbi", "gosbi", "@v")
	if err := os.MkdirAll(vd, 0o755); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"list": []byte(v + "\n"), v + ".info": []byte(`{"Version":"` + v + `","Time":"2024-01-01T00:00:00Z"}`), v + ".mod": mod} {
		if err := os.WriteFile(filepath.Join(vd, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Create(filepath.Join(vd, v+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == ".git" || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		w, err := zw.Create("github.com/gosbi/gosbi@" + v + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestReleasedGosbiResolves builds on a released gosbi (a version in the module proxy, here
// this checkout served as v0.0.1-test) instead of a checkout: the build module requires it
// with the checksums its packages need, so that gosbi's packages and symgen load.
func TestReleasedGosbiResolves(t *testing.T) {
	src := testBuilder(t).GosbiDir
	const v = "v0.0.1-test"
	proxy := t.TempDir()
	writeGosbiProxy(t, proxy, src, v)
	b := &Builder{CacheDir: t.TempDir(), GosbiVersion: v, Env: proxyEnv(t, proxy)}
	ctx := context.Background()
	m := prepareModule(t, ctx, b, t.TempDir())
	defer m.unlock()
	out, err := m.goOut(ctx, m.dir, nil, append([]string{"list", "-e", "-deps", "-json=ImportPath,Module,Error"}, gosbiPackages...)...)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	n := 0
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		if p.Error != nil {
			t.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		if p.ImportPath == GosbiModule+"/interp" && (p.Module == nil || p.Module.Version != v) {
			t.Errorf("interp comes from %+v, want %s %s", p.Module, GosbiModule, v)
		}
	}
	if n < len(gosbiPackages) {
		t.Errorf("go list listed %d packages", n)
	}
}
