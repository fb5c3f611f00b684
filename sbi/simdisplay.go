package sbi

import (
	"fmt"
	"html"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Bounds of the rich display of a Simulation: the rows and the columns of θ and of x shown.
const (
	simShowRows = 5
	simShowCols = 6
)

// String is a one-line summary: rows kept and dropped, and the shapes of Theta and X.
func (s *Simulation) String() string {
	kept := len(s.Kept)
	str := fmt.Sprintf("Simulation: %d of %d rows kept", kept, kept+s.Dropped)
	if s.Dropped > 0 {
		str += fmt.Sprintf(", %d dropped (output nil, NaN or ±Inf)", s.Dropped)
	}
	return str + fmt.Sprintf("; Theta %s, X %s", shape(s.Theta), shape(s.X))
}

func shape(m *mat.Dense) string {
	if m == nil {
		return "empty"
	}
	r, c := m.Dims()
	return fmt.Sprintf("%d×%d", r, c)
}

// MIMEBundle shows the summary and the first rows (input row number, θ and x, at most
// simShowCols columns of each) as HTML and text, instead of the matrices' contents.
func (s *Simulation) MIMEBundle() map[string]any {
	n := 0
	if s.Theta != nil {
		n, _ = s.Theta.Dims()
	}
	rows := min(n, simShowRows)
	var txt, htm strings.Builder
	txt.WriteString(s.String())
	htm.WriteString("<div>" + html.EscapeString(s.String()))
	if rows > 0 {
		htm.WriteString(`<table><tr><th>row</th>`)
		for _, h := range append(colHeads("θ", s.Theta), colHeads("x", s.X)...) {
			htm.WriteString("<th>" + html.EscapeString(h) + "</th>")
		}
		htm.WriteString("</tr>")
		for i := 0; i < rows; i++ {
			in := i
			if i < len(s.Kept) {
				in = s.Kept[i]
			}
			th, x := rowCells(s.Theta, i), rowCells(s.X, i)
			fmt.Fprintf(&txt, "\n  row %d: θ = [%s]  x = [%s]", in, strings.Join(th, " "), strings.Join(x, " "))
			fmt.Fprintf(&htm, "<tr><td>%d</td>", in)
			for _, v := range append(th, x...) {
				htm.WriteString("<td>" + html.EscapeString(v) + "</td>")
			}
			htm.WriteString("</tr>")
		}
		htm.WriteString("</table>")
		if n > rows {
			fmt.Fprintf(&txt, "\n  … %d more rows", n-rows)
			fmt.Fprintf(&htm, "<div>… %d more rows</div>", n-rows)
		}
	}
	htm.WriteString("</div>")
	return map[string]any{"text/plain": txt.String(), "text/html": htm.String()}
}

// colHeads names the columns of m shown, "θ1", "θ2", …, with "…" for the columns left out.
func colHeads(prefix string, m *mat.Dense) []string {
	if m == nil {
		return nil
	}
	_, c := m.Dims()
	var h []string
	for j := 0; j < min(c, simShowCols); j++ {
		h = append(h, fmt.Sprintf("%s%d", prefix, j+1))
	}
	if c > simShowCols {
		h = append(h, "…")
	}
	return h
}

// rowCells formats the columns of row i of m that are shown.
func rowCells(m *mat.Dense, i int) []string {
	if m == nil {
		return nil
	}
	r, c := m.Dims()
	if i >= r {
		return nil
	}
	var cells []string
	for j := 0; j < min(c, simShowCols); j++ {
		cells = append(cells, fmt.Sprintf("%.4g", m.At(i, j)))
	}
	if c > simShowCols {
		cells = append(cells, "…")
	}
	return cells
}
