package interp

import (
	"reflect"
	"strings"
	"testing"

	yaegi "github.com/traefik/yaegi/interp"
)

// TestMainSymbolsReachable is the canary of mainSymbols: it fails when the interpreter no
// longer keeps the symbols of package main where the session looks for them, so that a cell
// that fails would leave zero values again (see undoByValue).
func TestMainSymbolsReachable(t *testing.T) {
	ts := newTestSession(t)
	ts.mustRun(t, "canary := 1.5")
	table := mainSymbols(ts.yi)
	if !table.IsValid() {
		t.Fatal("the interpreter's table of package main's symbols cannot be reached")
	}
	if !table.MapIndex(reflect.ValueOf("canary")).IsValid() {
		t.Fatal("the table has no symbol for the variable canary")
	}
}

// TestFailedCellWithoutSymbolTable checks the way the session takes when the interpreter's
// symbols cannot be reached: values of redefined variables of the same type are put back, and
// the error names the variables it could not undo.
func TestFailedCellWithoutSymbolTable(t *testing.T) {
	symbolTable = func(*yaegi.Interpreter) reflect.Value { return reflect.Value{} }
	t.Cleanup(func() { symbolTable = mainSymbols })
	ts := newTestSession(t)
	ts.mustRun(t, "data := []float64{1, 2}\nmodel := 7\nm := 3.5\nconst k = 1")
	for _, c := range []struct{ code, err, after, want string }{
		{"model := int(data[10])", "index out of range", "model", "7"},
		{"c := data[3]", "c: defined by this cell, whose definition did not run: it exists with its zero value", "", ""},
		{"m := fmt.Sprint(data[5])", "m: defined anew with another type by this cell, whose definition did not run: the old value is lost", "", ""},
		{"var model = int(data[10])", "index out of range", "model", "7"},
		{"var d = data[3]", "d: defined by this cell, whose definition did not run: it exists with its zero value", "", ""},
		{"const k = 2\nconst j = nope", "k: declared anew by this cell, whose declaration did not compile: the constant may hold", "", ""},
		{"var model float64 = 2.5\nvar e = nope", "model: defined anew with another type by this cell", "", ""},
	} {
		res := ts.run(c.code)
		if res.Err == nil || !strings.Contains(res.Err.Value, c.err) {
			t.Fatalf("%q: got %+v, want an error containing %q", c.code, res.Err, c.err)
		}
		if c.after != "" {
			if got := text(ts.mustRun(t, c.after)); got != c.want {
				t.Errorf("after %q: %s = %s, want %s", c.code, c.after, got, c.want)
			}
		}
	}
}
