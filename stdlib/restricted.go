package stdlib

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
)

// The symbol tables route these functions here, so that interpreted code cannot end the
// process that hosts it: os.Exit and log.Fatal panic instead, and the session reports it.

// Exit is the panic value of os.Exit called by interpreted code. A script runner exits with
// Code; a notebook reports it as the cell's error.
type Exit struct{ Code int }

func (e Exit) Error() string { return fmt.Sprintf("os.Exit(%d) called", e.Code) }

func osExit(code int) { panic(Exit{Code: code}) }

func osFindProcess(pid int) (*os.Process, error) {
	if pid == os.Getpid() {
		return nil, errors.New("os.FindProcess: interpreted code cannot signal its own process")
	}
	return os.FindProcess(pid)
}

func logFatal(v ...any)            { log.Panic(v...) }
func logFatalf(f string, v ...any) { log.Panicf(f, v...) }
func logFatalln(v ...any)          { log.Panicln(v...) }

// logLogger is log.Logger whose Fatal methods panic instead of exiting.
type logLogger struct{ l *log.Logger }

func logNew(out io.Writer, prefix string, flag int) *logLogger {
	return &logLogger{log.New(out, prefix, flag)}
}

func (l *logLogger) Fatal(v ...any)                   { l.l.Panic(v...) }
func (l *logLogger) Fatalf(f string, v ...any)        { l.l.Panicf(f, v...) }
func (l *logLogger) Fatalln(v ...any)                 { l.l.Panicln(v...) }
func (l *logLogger) Flags() int                       { return l.l.Flags() }
func (l *logLogger) Output(depth int, s string) error { return l.l.Output(depth+1, s) }
func (l *logLogger) Panic(v ...any)                   { l.l.Panic(v...) }
func (l *logLogger) Panicf(f string, v ...any)        { l.l.Panicf(f, v...) }
func (l *logLogger) Panicln(v ...any)                 { l.l.Panicln(v...) }
func (l *logLogger) Prefix() string                   { return l.l.Prefix() }
func (l *logLogger) Print(v ...any)                   { l.l.Print(v...) }
func (l *logLogger) Printf(f string, v ...any)        { l.l.Printf(f, v...) }
func (l *logLogger) Println(v ...any)                 { l.l.Println(v...) }
func (l *logLogger) SetFlags(flag int)                { l.l.SetFlags(flag) }
func (l *logLogger) SetOutput(w io.Writer)            { l.l.SetOutput(w) }
func (l *logLogger) SetPrefix(p string)               { l.l.SetPrefix(p) }
func (l *logLogger) Writer() io.Writer                { return l.l.Writer() }
