// Package table renders the small result tables of the calib and diag packages as a MIME bundle
// (HTML and aligned plain text). It knows nothing of notebooks and holds no statistics.
package table

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// Table is a titled table with a header row, body rows and notes printed under it.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string
}

// Add appends a body row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Bundle returns the table as "text/html" and "text/plain", for MIMEBundle methods.
func (t *Table) Bundle() map[string]any {
	var h strings.Builder
	fmt.Fprintf(&h, "<div><b>%s</b><table>", html.EscapeString(t.Title))
	h.WriteString("<tr>")
	for _, c := range t.Header {
		fmt.Fprintf(&h, "<th>%s</th>", html.EscapeString(c))
	}
	h.WriteString("</tr>")
	for _, r := range t.Rows {
		h.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&h, "<td>%s</td>", html.EscapeString(c))
		}
		h.WriteString("</tr>")
	}
	h.WriteString("</table>")
	for _, n := range t.Notes {
		fmt.Fprintf(&h, "<div>%s</div>", html.EscapeString(n))
	}
	h.WriteString("</div>")

	width := make([]int, len(t.Header))
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			if i < len(width) && utf8.RuneCountInString(c) > width[i] {
				width[i] = utf8.RuneCountInString(c)
			}
		}
	}
	var s strings.Builder
	s.WriteString(t.Title + "\n")
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			if i < len(width) {
				s.WriteString(c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		s.WriteString("\n")
	}
	for _, n := range t.Notes {
		s.WriteString(n + "\n")
	}
	return map[string]any{"text/html": h.String(), "text/plain": strings.TrimRight(s.String(), "\n")}
}

// G formats v with 4 significant digits.
func G(v float64) string { return fmt.Sprintf("%.4g", v) }
