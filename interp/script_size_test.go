package interp

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/readlimit"
)

// TestScriptSizeBound refuses a script, from a file or standard input, larger than
// readlimit.MaxScript, and a resume file larger than maxResumeSize, before reading them whole.
func TestScriptSizeBound(t *testing.T) {
	dir := t.TempDir()
	sparse := func(name string, n int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, n); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name   string
		args   func() []string
		stdin  io.Reader
		resume func() string // the resume file, "" for none
		want   string
	}{
		{name: "file one byte over", args: func() []string { return []string{sparse("big.go", readlimit.MaxScript+1)} },
			want: "larger than the 16777216 bytes (16 MiB) a Go script may hold"},
		{name: "standard input one byte over", args: func() []string { return []string{"-"} },
			stdin: io.LimitReader(zeros{}, readlimit.MaxScript+1), want: "standard input is larger than the 16777216 bytes"},
		{name: "resume file one byte over", args: func() []string { return []string{"-"} }, stdin: strings.NewReader(""),
			resume: func() string { return sparse("resume.json", maxResumeSize+1) }, want: "larger than the 268435456 bytes (256 MiB) the cells to resume may hold"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.resume != nil {
				t.Setenv(resumeEnv, c.resume())
			}
			err := runScript(c.args(), c.stdin, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// zeros is a stream of zero bytes without end.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
