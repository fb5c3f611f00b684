package calib

import (
	"fmt"
	"html"
	"strings"
	"unicode/utf8"
)

// table renders a small table as HTML and as aligned plain text, for MIMEBundle methods.
type table struct {
	title  string
	header []string
	rows   [][]string
	notes  []string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) bundle() map[string]any {
	var h strings.Builder
	fmt.Fprintf(&h, "<div><b>%s</b><table>", html.EscapeString(t.title))
	h.WriteString("<tr>")
	for _, c := range t.header {
		fmt.Fprintf(&h, "<th>%s</th>", html.EscapeString(c))
	}
	h.WriteString("</tr>")
	for _, r := range t.rows {
		h.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&h, "<td>%s</td>", html.EscapeString(c))
		}
		h.WriteString("</tr>")
	}
	h.WriteString("</table>")
	for _, n := range t.notes {
		fmt.Fprintf(&h, "<div>%s</div>", html.EscapeString(n))
	}
	h.WriteString("</div>")

	width := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			if i < len(width) && utf8.RuneCountInString(c) > width[i] {
				width[i] = utf8.RuneCountInString(c)
			}
		}
	}
	var s strings.Builder
	s.WriteString(t.title + "\n")
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			if i < len(width) {
				s.WriteString(c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)+2))
			}
		}
		s.WriteString("\n")
	}
	for _, n := range t.notes {
		s.WriteString(n + "\n")
	}
	return map[string]any{"text/html": h.String(), "text/plain": strings.TrimRight(s.String(), "\n")}
}

func fmtG(v float64) string { return fmt.Sprintf("%.4g", v) }
