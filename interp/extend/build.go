package extend

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/readlimit"
)

// GosbiModule is the module path of gosbi, which every extended worker requires.
const GosbiModule = "github.com/gosbi/gosbi"

// format is the version of what the builder writes; changing the generated files changes it,
// so that binaries of an older builder are not reused.
const format = "extend/1"

// Builder builds and caches extended workers. The zero value is not usable: use NewBuilder
// or fill every field.
type Builder struct {
	// CacheDir holds the build modules (CacheDir/mod/…) and the binaries (CacheDir/bin/KEY).
	CacheDir string
	// Go is the go command. Empty means "go" looked up on PATH.
	Go string
	// GosbiDir is a checkout of gosbi that the workers are built from; empty means the
	// released version GosbiVersion, fetched like any module.
	GosbiDir string
	// GosbiVersion is the version of gosbi required when GosbiDir is empty.
	GosbiVersion string
	// Tags are the build tags of the running gosbi, passed on to go build.
	Tags string
	// Env is added to the environment of every go command (GOPROXY=off, GOFLAGS=…).
	Env []string
	// Log, when set, is told about slow steps before they start (a build that is not cached).
	Log func(msg string)
}

// NewBuilder returns a Builder for the running gosbi: workers are built from the sources
// this binary was built from when they still exist (a checkout, or the module cache's copy of
// a release), else from its released version, with
// the same build tags, and cached in the user's cache directory (GOSBI_CACHE overrides it).
func NewBuilder() (*Builder, error) {
	b := &Builder{CacheDir: os.Getenv("GOSBI_CACHE")}
	if b.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("extend: no cache directory for worker binaries (set GOSBI_CACHE): %w", err)
		}
		b.CacheDir = filepath.Join(dir, "gosbi", "workers")
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				b.Tags = s.Value
			}
		}
		if bi.Main.Path == GosbiModule && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.GosbiVersion = bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == GosbiModule && d.Version != "(devel)" {
				b.GosbiVersion = d.Version
			}
		}
	}
	// A binary built in a clean checkout carries a pseudo-version from its commit (Go stamps
	// it from version control), which no proxy serves: the sources it was built from, where
	// they still exist, come first.
	if dir := os.Getenv("GOSBI_SRC"); dir != "" {
		b.GosbiDir = dir
	} else {
		b.GosbiDir = sourceDir()
	}
	if b.GosbiDir == "" && b.GosbiVersion == "" {
		return nil, errors.New("extend: this gosbi was built from a checkout that no longer exists: " +
			"set GOSBI_SRC to a gosbi checkout, or install a released gosbi (go install github.com/gosbi/gosbi@latest)")
	}
	return b, nil
}

// sourceDir returns the root of the gosbi checkout this package was compiled from, or "" when
// the binary was built with -trimpath or the checkout is gone.
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return gosbiRoot(filepath.Dir(filepath.Dir(filepath.Dir(file)))) // …/interp/extend/build.go
}

// maxGoModSize bounds a go.mod that a build reads: gosbi's own at the root of a checkout and
// the build module's (1 MiB; gosbi's is about 1 KiB).
const maxGoModSize = 1 << 20

// maxInfoSize bounds the description of a cached worker binary, KEY.json (16 MiB).
const maxInfoSize = 16 << 20

// gosbiRoot returns root when its go.mod is gosbi's, else "" (also for a go.mod larger than
// maxGoModSize, which is not gosbi's).
func gosbiRoot(root string) string {
	data, err := readlimit.File(filepath.Join(root, "go.mod"), "a go.mod", maxGoModSize)
	if err != nil || !bytes.HasPrefix(data, []byte("module "+GosbiModule+"\n")) {
		return ""
	}
	return root
}

// Request says what a worker must link.
type Request struct {
	// Dir is the notebook's directory: its go.work or go.mod resolves the packages.
	Dir string
	// Packages are the import paths to link, besides those gosbi always links.
	Packages []string
	// Get are module queries (path@version) to add to the build module first (%go get).
	Get []string
	// Compiled are the notebook's %%compile cells, linked as CompiledPackage.
	Compiled []Cell
}

// Worker is a built extended worker.
type Worker struct {
	Binary   string   // the executable
	Key      string   // the cache key
	Packages []string // the packages it links, sorted
	Cached   bool     // it was in the cache
	// Unavailable lists exported identifiers of the packages that cells cannot use.
	Unavailable []Unavailable
	Elapsed     time.Duration
}

// Unavailable is an exported identifier that yaegi cannot give to cells.
type Unavailable struct {
	Package, Name, Why string
}

func (u Unavailable) String() string { return u.Package + "." + u.Name + ": " + u.Why }

// Build returns a worker that links req.Packages, from the cache when it holds one.
func (b *Builder) Build(ctx context.Context, req Request) (*Worker, error) {
	start := time.Now()
	goCmd, err := b.goCommand(req.Packages)
	if err != nil {
		return nil, err
	}
	pkgs := slices.DeleteFunc(slices.Clone(req.Packages), func(p string) bool { return p == CompiledPackage })
	if len(req.Compiled) > 0 {
		pkgs = append(pkgs, CompiledPackage)
	}
	slices.Sort(pkgs)
	pkgs = slices.Compact(pkgs)
	m, err := b.prepare(ctx, goCmd, req.Dir)
	if err != nil {
		return nil, err
	}
	defer m.unlock()
	for _, q := range req.Get {
		if err := m.get(ctx, q); err != nil {
			return nil, err
		}
	}
	compiled, err := m.writeCompiled(req.Compiled)
	if err != nil {
		return nil, err
	}
	if err := m.resolve(ctx, pkgs); err != nil {
		return nil, err
	}
	key, err := m.key(ctx, b, append(slices.Clone(pkgs), compiled))
	if err != nil {
		return nil, err
	}
	w := &Worker{Binary: filepath.Join(b.CacheDir, "bin", key), Key: key, Packages: pkgs}
	if info, err := readInfo(w.Binary); err == nil {
		w.Cached, w.Unavailable = true, info.Unavailable
		now := time.Now()
		os.Chtimes(w.Binary, now, now) // most recently used: pruned last
		w.Elapsed = time.Since(start)
		return w, nil
	}
	if b.Log != nil {
		b.Log(fmt.Sprintf("building a worker that links %s (cached afterwards)", strings.Join(pkgs, ", ")))
	}
	unavail, err := m.generate(ctx, pkgs, req.Compiled)
	if err != nil {
		return nil, err
	}
	if err := m.build(ctx, b.Tags, w.Binary); err != nil {
		return nil, err
	}
	w.Unavailable = unavail
	if err := writeInfo(w.Binary, info{Packages: pkgs, Unavailable: unavail}); err != nil {
		return nil, err
	}
	prune(filepath.Dir(w.Binary), keepBinaries)
	w.Elapsed = time.Since(start)
	return w, nil
}

// Get adds a module (a query path@version, as for go get) to the build module of the
// notebook directory dir, so that later builds for that directory use it.
func (b *Builder) Get(ctx context.Context, dir, query string) error {
	goCmd, err := b.goCommand([]string{query})
	if err != nil {
		return err
	}
	m, err := b.prepare(ctx, goCmd, dir)
	if err != nil {
		return err
	}
	defer m.unlock()
	return m.get(ctx, query)
}

// keepBinaries is how many worker binaries (about 50 MB each) the cache keeps.
const keepBinaries = 8

// prune removes all but the keep most recently used binaries of dir. A binary that a running
// process uses may go: the process keeps it, and a later build makes it again.
func prune(dir string, keep int) {
	infos, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	type bin struct {
		name string
		used time.Time
	}
	var bins []bin
	for _, j := range infos {
		b := strings.TrimSuffix(j, ".json")
		if st, err := os.Stat(b); err == nil {
			bins = append(bins, bin{b, st.ModTime()})
		}
	}
	if len(bins) <= keep {
		return
	}
	slices.SortFunc(bins, func(x, y bin) int { return y.used.Compare(x.used) })
	for _, b := range bins[keep:] {
		os.Remove(b.name + ".json")
		os.Remove(b.name)
	}
}

// ErrNoGo is returned when the go command cannot be found.
var ErrNoGo = errors.New("the go command is not on PATH")

func (b *Builder) goCommand(pkgs []string) (string, error) {
	name := b.Go
	if name == "" {
		name = "go"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("importing %s needs a new worker built with Go, but %w: install Go (https://go.dev/dl) "+
			"and make sure `go version` works in the shell that starts gosbi", strings.Join(quoteAll(pkgs), ", "), ErrNoGo)
	}
	return p, nil
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return q
}

// info is stored beside a binary (KEY.json): what it links and what it lacks.
type info struct {
	Packages    []string
	Unavailable []Unavailable
}

// readInfo returns the description stored beside the cached binary bin. Any error (no binary,
// a description missing, too large or not JSON) means that the cache does not hold the worker,
// which is then built anew.
func readInfo(bin string) (info, error) {
	var in info
	if _, err := os.Stat(bin); err != nil {
		return in, err
	}
	data, err := readlimit.File(bin+".json", "the description of a cached worker", maxInfoSize)
	if err != nil {
		return in, err
	}
	return in, json.Unmarshal(data, &in)
}

func writeInfo(bin string, in info) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return writeFileAtomic(bin+".json", data, 0o644)
}

// writeFileAtomic writes data to name through a synced temporary file in the same directory
// (internal/atomicfile), creating the directory if needed.
func writeFileAtomic(name string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(name, data, perm); err != nil {
		return fmt.Errorf("extend: write %s: %w", name, err)
	}
	return nil
}

// hashKey returns a short hex digest of the parts.
func hashKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		io.WriteString(h, p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
