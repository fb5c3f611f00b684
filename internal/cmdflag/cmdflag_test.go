package cmdflag

import (
	"errors"
	"flag"
	"io"
	"testing"
)

// TestParse: a flag error is a *ParseError wrapping the flag package's error; -h is
// flag.ErrHelp; good flags are no error.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		args     []string
		wantErr  bool
		wantHelp bool
	}{
		{[]string{"-n", "3"}, false, false},
		{[]string{"-bogus"}, true, false},
		{[]string{"-n", "x"}, true, false},
		{[]string{"-h"}, true, true},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 0, "a number")
		err := Parse(fs, c.args)
		var pe *ParseError
		if got := errors.As(err, &pe); got != c.wantErr {
			t.Errorf("Parse(%q) = %v, want a *ParseError: %v", c.args, err, c.wantErr)
		}
		if got := errors.Is(err, flag.ErrHelp); got != c.wantHelp {
			t.Errorf("Parse(%q) = %v, want flag.ErrHelp: %v", c.args, err, c.wantHelp)
		}
	}
}
