package nbtest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// pauseLog is a run's log that holds the runner up for pause before it sends the cell whose
// progress line holds before, leaving a gap between two cells in which no cell runs.
type pauseLog struct {
	before string
	pause  time.Duration
}

func (l pauseLog) Write(p []byte) (int, error) {
	if l.before != "" && strings.Contains(string(p), l.before) {
		time.Sleep(l.pause)
	}
	return len(p), nil
}

// TestLateOutputKept runs notebooks whose goroutines print after their cell has ended (the fake
// worker's printlater prints 200 ms after the cell): the kernel sends that text to the last
// cell that ran, and the run appends it to that cell's outputs, whether it comes while no cell
// runs between two cells or after the last cell, within the cell's --max-output.
func TestLateOutputKept(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cells     []string
		log       pauseLog
		maxOutput int
		want      []string // outputs of each cell, as outputsOf writes them
	}{
		{
			name:  "between cells",
			cells: []string{"print one\nprintlater late", "print two"},
			log:   pauseLog{before: ": cell 2/", pause: 700 * time.Millisecond},
			want:  []string{"stdout:one\nlate\n", "stdout:two\n"},
		},
		{
			name:  "after the last cell",
			cells: []string{"print one", "print two\nprintlater late"},
			want:  []string{"stdout:one\n", "stdout:two\nlate\n"},
		},
		{
			name:      "within max-output",
			cells:     []string{"print abcdef\nprintlater ghijkl"},
			maxOutput: 8,
			want: []string{"stdout:abcd|stderr:\n[output truncated: 6B of this cell's output are not saved here. gosbi run keeps 8B of a cell's " +
				"stream output, the first and the last half (--max-output 8B); raise the limit with --max-output, or write large output to a file.]\n" +
				"|stdout:jkl\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nb := notebook(tc.cells...)
			nb.Metadata = map[string]any{}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := nbtest.ExecuteNotebook(ctx, nb, "late.ipynb", nbtest.Config{Log: tc.log, MaxOutput: tc.maxOutput})
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Err(); err != nil {
				t.Fatal(err)
			}
			for i, c := range res.Notebook.Cells {
				if got := outputsOf(c); got != tc.want[i] {
					t.Errorf("cell %d outputs %q, want %q", i+1, got, tc.want[i])
				}
			}
		})
	}
}
