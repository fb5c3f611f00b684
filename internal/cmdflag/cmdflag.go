// Package cmdflag parses the flags of gosbi's sub-commands so that a flag error reaches the
// user once.
//
// A flag.FlagSet made with flag.ContinueOnError writes a parse error, then the command's usage,
// on its output before it returns the error. Parse returns that error as a *ParseError: it
// tells the caller (gosbi's main) that the user has already read it, so that it exits with
// the status of a usage error without writing it again.
package cmdflag

import "flag"

// ParseError is an error of a flag set's Parse that the flag set has already written, with the
// command's usage.
type ParseError struct{ Err error }

func (e *ParseError) Error() string { return e.Err.Error() }

func (e *ParseError) Unwrap() error { return e.Err }

// Parse parses args with fs, returning its error, if any, as a *ParseError.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return &ParseError{Err: err}
	}
	return nil
}
