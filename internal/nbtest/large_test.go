//go:build dragonfly || freebsd || linux || netbsd || openbsd

// The test here reads the peak resident memory of a process from its rusage, ru_maxrss, which
// these systems give in KiB (macOS gives bytes; Windows has no ru_maxrss).

package nbtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// floodNotebook writes a notebook whose first cell prints mib lines of 1 MiB, numbered, and
// returns "done"; the second cell prints one line.
func floodNotebook(t *testing.T, dir string, mib int) string {
	t.Helper()
	code := fmt.Sprintf("import (\n\t\"fmt\"\n\t\"strings\"\n)\nline := strings.Repeat(\"x\", 1<<20-9)\n"+
		"for i := 0; i < %d; i++ {\n\tfmt.Printf(\"%%07d %%s\\n\", i, line)\n}\n\"done\"", mib)
	nb := map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{}, "cells": []any{
		map[string]any{"cell_type": "code", "id": "flood", "metadata": map[string]any{}, "source": code, "outputs": []any{}, "execution_count": nil},
		map[string]any{"cell_type": "code", "id": "next", "metadata": map[string]any{}, "source": "fmt.Println(\"next cell ran\")", "outputs": []any{}, "execution_count": nil},
	}}
	b, _ := json.Marshal(nb)
	path := filepath.Join(dir, fmt.Sprintf("flood-%d.ipynb", mib))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunLargeOutput runs `gosbi run` on cells that print 150 MiB and 1 GiB: it ends in bounded
// time and memory, the notebook is saved with the start and the end of the output and a note
// of what was left out between them, the cell's result is there, and the next cell ran.
func TestRunLargeOutput(t *testing.T) {
	bin := buildGosbi(t)
	dir := t.TempDir()
	for _, mib := range []int{150, 1024} {
		t.Run(fmt.Sprintf("%dMiB", mib), func(t *testing.T) {
			path := floodNotebook(t, dir, mib)
			out := filepath.Join(dir, "out")
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "run", path, "--out", out, "--quiet")
			start := time.Now()
			msg, err := cmd.CombinedOutput()
			took := time.Since(start)
			if ctx.Err() != nil {
				t.Fatalf("gosbi run did not end within 4 minutes; output:\n%s", msg)
			}
			if err != nil {
				t.Fatalf("gosbi run: %v\n%s", err, msg)
			}
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
			t.Logf("%d MiB printed: gosbi run took %v, its largest process (runner, kernel or worker) held %d MiB", mib, took.Round(time.Millisecond), rss>>20)
			if rss > 512<<20 {
				t.Errorf("a process of the run held %d MiB: the output is not bounded", rss>>20)
			}
			nb, err := nbtest.ReadNotebook(filepath.Join(out, filepath.Base(path)))
			if err != nil {
				t.Fatal(err)
			}
			outs := nb.Cells[0].Outputs
			var types []string
			for _, o := range outs {
				types = append(types, o.OutputType+":"+o.Name)
			}
			if strings.Join(types, " ") != "stream:stdout stream:stderr stream:stdout execute_result:" {
				t.Fatalf("the flood cell's outputs are %v, want its head, the note, its tail and its result", types)
			}
			head, note, tail := outs[0].Text, outs[1].Text, outs[2].Text
			if !strings.HasPrefix(head, "0000000 xxx") {
				t.Errorf("the saved output does not start with the first line: %q", head[:min(len(head), 40)])
			}
			if last := fmt.Sprintf("%07d x", mib-1); !strings.Contains(tail, last) || !strings.HasSuffix(tail, "x\n") {
				t.Errorf("the saved output does not end with the last line %q", last)
			}
			if !strings.Contains(note, "[output truncated:") || !strings.Contains(note, "--max-output 8MiB") {
				t.Errorf("the note of the truncation says %q", note)
			}
			if got := len(head) + len(tail); got > nbtest.DefaultMaxOutput {
				t.Errorf("%d bytes of output saved, more than the %d of the limit", got, nbtest.DefaultMaxOutput)
			}
			if outs[3].Data["text/plain"] != `"done"` {
				t.Errorf("the cell's result is %v, want \"done\"", outs[3].Data["text/plain"])
			}
			if next := nb.Cells[1].Outputs; len(next) != 1 || next[0].Text != "next cell ran\n" {
				t.Errorf("the next cell's outputs are %+v, want its line", next)
			}
		})
	}
}
