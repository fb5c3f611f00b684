package study

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobLogCapped: a job that writes without end to its log filled the disk, as nothing
// bounded DIR/logs/NNNNN.log. A job writing 20 MiB leaves a log of the first maxLogHead and the
// last maxLogTail bytes of its attempt, with a line between saying how many bytes were dropped,
// and the end of the attempt ("done in") is kept.
func TestJobLogCapped(t *testing.T) {
	requireStudyRuns(t)
	const total = 20 << 20
	Register("logcap-chatty", func(j *Job) error {
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for range total / len(line) {
			if _, err := j.Log.Write(line); err != nil {
				return err
			}
		}
		fmt.Fprintln(j.Log, "last line")
		return nil
	})
	spec := &Spec{Name: "logcap", Stages: []Stage{{Name: "talk", Func: "logcap-chatty"}}}
	s, err := Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunJob(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.LogPath(0))
	if err != nil {
		t.Fatal(err)
	}
	if max := maxLogHead + maxLogTail + 1024; len(data) > max {
		t.Errorf("the log holds %d bytes after the job wrote %d, want at most %d", len(data), total, max)
	}
	for _, want := range []string{"== job 0 (talk), attempt 1", "bytes of this attempt's output dropped here", "last line\ndone in"} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the log lacks %q", want)
		}
	}
}

// TestCappedLog: what a capped log keeps of an attempt, for outputs within the head, within
// the head and twice the tail (held while the attempt runs, cut at its end), and far beyond,
// written in pieces of several sizes, after what earlier attempts left in the file.
func TestCappedLog(t *testing.T) {
	const head, tail = 10, 8
	for _, c := range []struct {
		out     string
		piece   int
		dropped int // bytes the marker says were dropped; 0: no marker
	}{
		{"short", 3, 0},
		{"0123456789abcdefgh", 4, 0},
		{"0123456789abcdefghijklmnop", 5, 8},
		{"0123456789" + strings.Repeat("y", 1000) + "ABCDEFGH", 7, 1000},
		{"0123456789" + strings.Repeat("y", 1000) + "ABCDEFGH", 1, 1000},
		{"0123456789" + strings.Repeat("y", 1000) + "ABCDEFGH", 2000, 1000},
	} {
		path := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(path, []byte("earlier\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := openCappedLog(path, head, tail)
		if err != nil {
			t.Fatal(err)
		}
		for p := c.out; len(p) > 0; {
			n := min(c.piece, len(p))
			if k, err := l.Write([]byte(p[:n])); k != n || err != nil {
				t.Fatalf("Write of %d bytes: %d, %v", n, k, err)
			}
			p = p[n:]
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		want := "earlier\n" + c.out
		if c.dropped > 0 {
			want = "earlier\n" + c.out[:head] + dropLine(int64(c.dropped), head, tail) + c.out[len(c.out)-tail:]
		}
		if string(data) != want {
			t.Errorf("%d bytes in pieces of %d: the log holds\n%q\nwant\n%q", len(c.out), c.piece, data, want)
		}
	}
}
