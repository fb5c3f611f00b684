package display

import (
	"errors"
	"fmt"
	"html"
	"image"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// A MIMEBundler shows itself richly: keys are MIME types ("text/html", "image/png", …).
type MIMEBundler interface {
	MIMEBundle() map[string]any
}

// Render returns the MIME bundle that shows v: its own MIMEBundle when it has one (with a
// text/plain member added if missing), a PNG for images, a table for matrices, a summary for
// long numeric slices, and fmt's %v otherwise, cut after 20,000 bytes (and formatted only that
// far, however large the value). Strings are shown quoted, like Go source. A nil pointer whose
// MIMEBundle panics (the nil result of a call that failed) is shown as "<nil>", as fmt prints it.
func Render(v any) (data map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
				data = map[string]any{MIMEText: "<nil>"}
				return
			}
			data = map[string]any{MIMEText: fmt.Sprintf("<cannot display %T: %v>", v, r)}
		}
	}()
	switch x := v.(type) {
	case MIMEBundler:
		b := x.MIMEBundle()
		out := make(map[string]any, len(b)+1)
		for k, val := range b {
			out[k] = val
		}
		if _, ok := out[MIMEText]; !ok {
			out[MIMEText] = fmt.Sprintf("<%T>", v)
		}
		return out
	case nil:
		return map[string]any{MIMEText: "<nil>"}
	case error:
		return map[string]any{MIMEText: "error: " + x.Error()}
	case string:
		return map[string]any{MIMEText: quote(x)}
	case image.Image:
		return encodePNG(x)
	case mat.Matrix:
		return matrixBundle(x)
	}
	if s := numericSlice(v); s != "" {
		return map[string]any{MIMEText: s}
	}
	return map[string]any{MIMEText: plain(v)}
}

func quote(s string) string {
	if strings.Contains(s, "\n") && !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// maxText bounds the text of a value shown with fmt; longer text is cut with cutNote.
const maxText = 20000

// cutNote ends the text of a value cut at maxText bytes.
var cutNote = fmt.Sprintf("… (cut: longer than %d bytes)", maxText)

// plain is fmt's %v of v (%+v for a struct or a pointer to one), formatted only as far as
// maxText bytes and, when longer, cut there (at the start of a character) with cutNote.
func plain(v any) string {
	rv := reflect.ValueOf(v)
	p := printer{w: &capped{max: maxText},
		fieldNames: rv.Kind() == reflect.Struct || rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.Struct}
	p.value(rv, 0)
	s := p.w.buf
	if !p.w.full() {
		return string(s)
	}
	cut := maxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return string(s[:cut]) + cutNote
}

// maxRows and maxCols bound the part of a matrix shown; the rest is elided with "…".
const (
	maxRows = 20
	maxCols = 12
	maxElem = 40 // elements of a slice shown before eliding the middle
)

func matrixBundle(m mat.Matrix) map[string]any {
	r, c := m.Dims()
	text := fmt.Sprintf("%d×%d matrix\n%v", r, c, mat.Formatted(m, mat.Squeeze(), mat.Excerpt(maxRows/2)))
	if r <= maxRows && c <= maxCols {
		text = fmt.Sprintf("%d×%d matrix\n%v", r, c, mat.Formatted(m, mat.Squeeze()))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<table><caption>%d×%d matrix</caption>", r, c)
	rows := elide(r, maxRows)
	cols := elide(c, maxCols)
	for _, i := range rows {
		b.WriteString("<tr>")
		for _, j := range cols {
			if i < 0 || j < 0 {
				b.WriteString("<td>…</td>")
				continue
			}
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(strconv.FormatFloat(m.At(i, j), 'g', 6, 64)))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return map[string]any{MIMEText: text, MIMEHTML: b.String()}
}

// elide returns the indices 0..n-1, or the first and last limit/2 with -1 marking the gap.
func elide(n, limit int) []int {
	var idx []int
	if n <= limit {
		for i := range n {
			idx = append(idx, i)
		}
		return idx
	}
	for i := range limit / 2 {
		idx = append(idx, i)
	}
	idx = append(idx, -1)
	for i := n - limit/2; i < n; i++ {
		idx = append(idx, i)
	}
	return idx
}

// numericSlice formats slices of numbers with their length, eliding the middle of long ones;
// it returns "" for other values.
func numericSlice(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return ""
	}
	switch rv.Type().Elem().Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32,
		reflect.Int64, reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return ""
	}
	n := rv.Len()
	var b strings.Builder
	fmt.Fprintf(&b, "%s (len %d)\n[", rv.Type(), n)
	for k, i := range elide(n, maxElem) {
		if k > 0 {
			b.WriteByte(' ')
		}
		if i < 0 {
			b.WriteString("…")
			continue
		}
		e := rv.Index(i)
		if f := e.Kind(); f == reflect.Float64 || f == reflect.Float32 {
			b.WriteString(strconv.FormatFloat(e.Float(), 'g', 6, 64))
		} else {
			fmt.Fprint(&b, e.Interface())
		}
	}
	b.WriteByte(']')
	return b.String()
}

// CheckError is the panic value of a failed Check; the notebook reports it as the cell's error.
type CheckError struct{ Msg string }

func (e *CheckError) Error() string { return "check failed: " + e.Msg }

// Check is a notebook's own assertion: when cond is false the cell fails with an error naming
// msg, so a notebook run as a test (gosbi run) fails. Outside a notebook it panics with a
// *CheckError.
func Check(cond bool, msg string) {
	if !cond {
		panic(&CheckError{Msg: msg})
	}
}

// IsCheckError reports whether err (or a panic value) is a failed Check, and its message.
func IsCheckError(v any) (string, bool) {
	var ce *CheckError
	if err, ok := v.(error); ok && errors.As(err, &ce) {
		return ce.Msg, true
	}
	return "", false
}
