package extend

import (
	"archive/zip"
	"context"
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
	real := strings.TrimSpace(goEnv(t, "GOMODCACHE"))
	b.Env = []string{"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(real, "cache", "download")),
		"GOMODCACHE=" + t.TempDir(), "GOSUMDB=off", "GOFLAGS=-modcacherw"}
	nb := t.TempDir() // no go.mod, no go.work
	ctx := context.Background()
	if err := b.Get(ctx, nb, "example.com/hello@v1.0.0"); err != nil {
		t.Fatal(err)
	}
	goCmd, err := b.goCommand(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.prepare(ctx, goCmd, nb)
	if err != nil {
		t.Fatal(err)
	}
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

func goEnv(t *testing.T, name string) string {
	t.Helper()
	m := &buildModule{b: &Builder{}, goCmd: "go"}
	out, err := m.goOut(context.Background(), ".", nil, "env", name)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
