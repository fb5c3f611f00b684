package study

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// short cuts an error's text for a test's message: a bug may put a whole file in it.
func short(err error) string {
	s := fmt.Sprint(err)
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// TestSubmittedListTooLarge: a slurm/submitted larger than maxSubmittedSize is refused before
// it is read, with an error naming the file, the limit and what to do, and stays in place; a
// run that would grow the list past the limit gets an error naming the job and the limit, and
// the list keeps the ids it had.
func TestSubmittedListTooLarge(t *testing.T) {
	s, _ := earlierStudy(t)
	file := filepath.Join(s.Dir, "slurm", submittedFile)
	if err := os.Truncate(file, maxSubmittedSize+1); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	err := s.awaitSlurm(context.Background(), 1, nil)
	for _, want := range []string{file, "larger than the 64 MiB", "cancel", "remove " + file} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %s, want one with %q", short(err), want)
		}
	}
	if len(fmt.Sprint(err)) > 2000 {
		t.Errorf("the error holds %d bytes: it quotes the file", len(fmt.Sprint(err)))
	}
	if st, err := os.Stat(file); err != nil || st.Size() != maxSubmittedSize+1 {
		t.Errorf("the list after the refusal: %v, %v; want it kept", st, err)
	}

	if err := os.Truncate(file, maxSubmittedSize-3); err != nil {
		t.Fatal(err)
	}
	err = appendSubmitted(s, "12345")
	for _, want := range []string{"Slurm job 12345", "64 MiB", file} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("appending past the limit: error %s, want one with %q", short(err), want)
		}
	}
	if st, err := os.Stat(file); err != nil || st.Size() != maxSubmittedSize-3 {
		t.Errorf("the list after the refused append: %v, %v; want it unchanged", st, err)
	}
	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
	if err := appendSubmitted(s, "12345"); err != nil {
		t.Errorf("appending to an empty list: %v", err)
	}
}
