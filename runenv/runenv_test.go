package runenv

import (
	"context"
	"go/build"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestDefaults checks that the zero settings mean "none" or the default, and that setting nil
// (or 0 threads) restores them.
func TestDefaults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	SetContext(ctx)
	SetProgress(func(ProgressEvent) {})
	SetDisplay(func(Output) {})
	SetThreads(3)
	if Context() != ctx || Progress() == nil || Display() == nil || Threads() != 3 {
		t.Fatalf("settings not kept: context %v, progress %v, display %v, threads %d",
			Context() == ctx, Progress() != nil, Display() != nil, Threads())
	}
	SetContext(nil)
	SetProgress(nil)
	SetDisplay(nil)
	SetThreads(0)
	if Context() != context.Background() {
		t.Errorf("context after SetContext(nil) is %v, want context.Background()", Context())
	}
	if Progress() != nil || Display() != nil {
		t.Errorf("sinks after setting nil: progress %v, display %v; want none", Progress() != nil, Display() != nil)
	}
	if got, want := Threads(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("threads after SetThreads(0) = %d, want GOMAXPROCS %d", got, want)
	}
	SetThreads(-4)
	if got, want := Threads(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("threads after SetThreads(-4) = %d, want GOMAXPROCS %d", got, want)
	}
}

// TestConcurrent sets and reads every setting from several goroutines at once (run with
// -race): a reader sees either setting, never a torn one.
func TestConcurrent(t *testing.T) {
	defer SetThreads(0)
	defer SetContext(nil)
	defer SetProgress(nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				if g%2 == 0 {
					SetThreads(1 + i%3)
					SetContext(context.Background())
					SetProgress(func(ProgressEvent) {})
					continue
				}
				if n := Threads(); n < 1 {
					t.Errorf("Threads() = %d", n)
					return
				}
				if Context() == nil {
					t.Error("Context() = nil")
					return
				}
				if f := Progress(); f != nil {
					f(ProgressEvent{Label: "x"})
				}
			}
		}()
	}
	wg.Wait()
}

// TestImportsOnlyStandardLibrary checks that every package of the module may import runenv:
// it imports nothing but the standard library.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range pkg.Imports {
		if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
			t.Errorf("runenv imports %s; it may import only the standard library", path)
		}
	}
}
